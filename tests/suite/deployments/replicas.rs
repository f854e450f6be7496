//! Replicas sharing a real Redis (Debian's `redis-server`, started here on a free loopback port
//! and stopped at the end): paused runs and final rounds kept by one replica are found by
//! another, a final round is locked across replicas, and a `plan_week` call whose approval
//! round lands on the other `board` process goes on there, running `clear_board` once; and the
//! rounds of a `board --caller-model` run, a sample each, taken by both replicas behind nginx.
//!
//! Ignored by a plain `cargo test`, since it needs `redis-server`: `scripts/test` installs it
//! with `scripts/services install` and runs these with `--ignored`.

use std::time::Duration;

use crate::common;
use crate::common::redis::Redis;
use crate::common::scratch::Scratch;
use ladoga::{PAUSED_RUN_TTL, RedisStore, RunStore};

/// Two connections to one Redis: two replicas.
async fn two_replicas(redis: &Redis) -> (RedisStore, RedisStore) {
    let one = RedisStore::connect(&redis.url()).await.expect("connects");
    let other = RedisStore::connect(&redis.url()).await.expect("connects");
    (one, other)
}

#[tokio::test]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_run_kept_by_one_replica_is_taken_once_by_another() {
    let redis = Redis::start().await;
    let (one, other) = two_replicas(&redis).await;

    one.put("run-1", b"the conversation".to_vec(), PAUSED_RUN_TTL)
        .await
        .expect("kept");
    assert_eq!(
        other.take("run-1").await.expect("read").as_deref(),
        Some(&b"the conversation"[..])
    );
    assert_eq!(one.take("run-1").await.expect("read"), None, "taken once");

    one.put("run-2", b"short-lived".to_vec(), Duration::from_millis(100))
        .await
        .expect("kept");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(other.take("run-2").await.expect("read"), None, "expired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_quotas_bookings_at_once_on_two_replicas_never_pass_its_limit() {
    let redis = Redis::start().await;
    let (one, other) = two_replicas(&redis).await;
    let ttl = Duration::from_secs(60);
    let key = "quota/planner/day/someone/1";
    // 100 bookings of 3 at once, half through each replica, under a limit of 100: 33 fit.
    let bookings = (0..100).map(|index| {
        let store = if index % 2 == 0 { &one } else { &other };
        store.book(key, 3, 100, ttl)
    });
    let booked = futures_util::future::join_all(bookings).await;
    let done = booked
        .iter()
        .filter(|booked| booked.as_ref().unwrap().0)
        .count();
    assert_eq!(done, 33);
    assert!(
        booked
            .iter()
            .all(|booked| booked.as_ref().unwrap().1 <= 100)
    );
    // Giving back is never refused; the total is what both see.
    assert_eq!(one.book(key, -9, 100, ttl).await.unwrap(), (true, 90));
    assert_eq!(other.book(key, 0, 100, ttl).await.unwrap(), (true, 90));
}

#[tokio::test]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_claim_is_one_callers_until_it_is_let_go() {
    let redis = Redis::start().await;
    let (one, other) = two_replicas(&redis).await;
    let ttl = Duration::from_secs(5);
    assert!(one.claim("lock", b"a".to_vec(), ttl).await.unwrap());
    assert!(
        !other.claim("lock", b"b".to_vec(), ttl).await.unwrap(),
        "held by a"
    );
    assert!(
        other.claim("lock", b"a".to_vec(), ttl).await.unwrap(),
        "a's again"
    );
    assert_eq!(one.take("lock").await.unwrap().as_deref(), Some(&b"a"[..]));
    assert!(
        other.claim("lock", b"b".to_vec(), ttl).await.unwrap(),
        "let go"
    );
}

#[tokio::test]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_session_started_on_one_replica_goes_on_on_the_other() {
    use ladoga::testing::{Reply, ScriptedModel};

    let redis = Redis::start().await;
    let script = ScriptedModel::from_fn(|seen| {
        let users = (seen.messages().iter())
            .filter(|message| message["role"] == "user")
            .count();
        Reply::text(format!("Answer {users}."))
    });
    let model = script.serve().await.expect("serves");
    let secret = [(
        "LADOGA_STATE_SECRET",
        "the replicas' session secret, 40 bytes..",
    )];
    let redis_url = redis.url();
    let flags = ["--redis", redis_url.as_str()];
    let (_a, a) = common::board_over_http_with_env(&model.url(), "scripted", &flags, &secret).await;
    let (_b, b) = common::board_over_http_with_env(&model.url(), "scripted", &flags, &secret).await;

    let on_a = common::connect(a).await;
    let first = on_a
        .tools()
        .call("plan_week", [("focus", "the release")])
        .await
        .unwrap();
    assert_eq!(common::answer(&first), "Answer 1.", "{first:?}");
    let block = serde_json::to_value(&first.content[0]).unwrap();
    let session = block["_meta"][ladoga::REPORT_KEY]["session"]
        .as_str()
        .expect("a session")
        .to_owned();

    let on_b = common::connect(b).await;
    let second = on_b
        .tools()
        .call(
            "plan_week",
            [("focus", "Thursday"), ("session", session.as_str())],
        )
        .await
        .unwrap();
    assert_eq!(common::answer(&second), "Answer 2.", "{second:?}");
    let last = script.requests().pop().unwrap();
    let roles: Vec<_> = last
        .messages()
        .iter()
        .map(|message| &message["role"])
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "user"],
        "B sent A's conversation: {:?}",
        last.messages()
    );
}

#[cfg(not(feature = "legacy-spec"))]
mod rounds {
    use super::*;

    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use crate::common::auth::{SECRET, SECRET_VAR, admin};
    use crate::common::board_over_http_with_env;
    use crate::common::nginx::Routing;
    use crate::common::peer::python_as_admin;
    use crate::common::rounds::{
        approve, cleared, clearing_model, question, refused, request, round, text,
    };
    use ladoga::testing::{Reply, ScriptedModel};
    use neva::app::mrtr_store::RequestStateStore;
    use neva::types::{RequestId, Response};
    use serde_json::{Value, json};

    /// The request-state secret the replicas share in these tests: 40 bytes.
    const STATE_SECRET: &str = "the replicas' request-state secret, 40 b";

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn a_final_round_kept_by_one_replica_is_found_and_locked_by_another() {
        let redis = Redis::start().await;
        let (one, other) = two_replicas(&redis).await;

        let response = Response::success(RequestId::Number(7), serde_json::json!({"done": true}));
        let exp = neva_now() + 60;
        RequestStateStore::put(&one, "tag-1", response, exp).await;
        let found = other
            .get("tag-1")
            .await
            .expect("found by the other replica");
        assert_eq!(serde_json::to_value(found).unwrap()["result"]["done"], true);
        assert!(other.get("tag-2").await.is_none());

        // One replica holds the round; the other waits until it lets go.
        let held = one.reserve("tag-3").await;
        let released = Arc::new(AtomicBool::new(false));
        let seen = released.clone();
        let waiting = tokio::spawn(async move {
            let _lock = other.reserve("tag-3").await;
            seen.load(Ordering::SeqCst)
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !waiting.is_finished(),
            "the other replica waits for the lock"
        );
        released.store(true, Ordering::SeqCst);
        drop(held);
        let after_release = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the lock is released")
            .expect("the task ends");
        assert!(
            after_release,
            "the other replica got the lock only after the first let go"
        );
    }

    /// Seconds since the epoch.
    fn neva_now() -> u64 {
        common::auth::now()
    }

    /// A `board --auth --redis` replica with the request-state secrets `secrets` (variable,
    /// value), talking to `model_url`.
    async fn replica(
        model_url: &str,
        redis: &Redis,
        secrets: &[(&str, &str)],
    ) -> (tokio::process::Child, std::net::SocketAddr) {
        let mut env = vec![(SECRET_VAR, SECRET)];
        env.extend_from_slice(secrets);
        board_over_http_with_env(
            model_url,
            "scripted",
            &["--auth", "--redis", &redis.url()],
            &env,
        )
        .await
    }

    /// The secret variables of a replica sealing with `secret`.
    fn sealing(secret: &str) -> [(&'static str, &str); 1] {
        [("LADOGA_STATE_SECRET", secret)]
    }

    /// The secret variables of a replica sealing with `secret` and accepting `accepted` too.
    fn rotating<'a>(secret: &'a str, accepted: &'a str) -> [(&'static str, &'a str); 2] {
        [
            ("LADOGA_STATE_SECRET", secret),
            ("LADOGA_STATE_SECRET_ACCEPTED", accepted),
        ]
    }

    /// Redis, the model asking for `clear_board`, and two replicas sharing both: A with the
    /// shared secret, B with `b_secret`; or with the secrets [`Pair::with`] gives.
    struct Pair {
        redis: Redis,
        script: ScriptedModel,
        _model: ladoga::testing::ScriptedServer,
        _replicas: [tokio::process::Child; 2],
        a: std::net::SocketAddr,
        b: std::net::SocketAddr,
    }

    impl Pair {
        async fn start(b_secret: &str) -> Self {
            Self::with(&sealing(STATE_SECRET), &sealing(b_secret)).await
        }

        async fn with(a_secrets: &[(&str, &str)], b_secrets: &[(&str, &str)]) -> Self {
            let redis = Redis::start().await;
            let script = clearing_model();
            let model = script.serve().await.expect("serves");
            let (one, a) = replica(&model.url(), &redis, a_secrets).await;
            let (other, b) = replica(&model.url(), &redis, b_secrets).await;
            Self {
                redis,
                script,
                _model: model,
                _replicas: [one, other],
                a,
                b,
            }
        }

        /// Alice's first round of `plan_week` on A: its question's key and sealed state.
        async fn asked_on_a(&self) -> (String, String) {
            question(&round(self.a, &admin("alice"), "the release", None, None).await)
        }

        /// Alice's retry on B with the approval of `key`.
        async fn approved_on_b(&self, (key, state): &(String, String)) -> Value {
            let answers = Some(approve(key));
            round(self.b, &admin("alice"), "the release", Some(state), answers).await
        }
    }

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn a_run_paused_on_one_replica_goes_on_on_the_other() {
        let pair = Pair::start(STATE_SECRET).await;
        let (script, a, alice) = (&pair.script, pair.a, admin("alice"));

        // The question comes from replica A; the approval goes to replica B.
        let asked = pair.asked_on_a().await;
        let done = pair.approved_on_b(&asked).await;
        let (key, state) = asked;

        assert_eq!(text(&done), "Done: Removed 0 tasks", "{done}");
        assert_eq!(cleared(script), 1, "clear_board ran once");
        assert_eq!(script.requests().len(), 2, "each turn was asked for once");
        // The same final round, sent to A: the answer B committed, nothing run again.
        let again = round(a, &alice, "the release", Some(&state), Some(approve(&key))).await;
        assert_eq!(again, done);
        assert_eq!(cleared(script), 1);
        assert_eq!(script.requests().len(), 2);
    }

    /// A model that adds two tasks, then asks for `clear_board`, then reports what it removed.
    fn adding_then_clearing_model() -> ScriptedModel {
        ScriptedModel::from_fn(|seen| {
            let results = seen.tool_results();
            match results.len() {
                0 => Reply::calls([
                    ("add_task", json!({"title": "Tag v1.0"})),
                    ("add_task", json!({"title": "Write the notes"})),
                ]),
                2 => Reply::call("clear_board", json!({})).with_text("Now I clear the board."),
                _ => Reply::text(format!("Done: {}", results[results.len() - 1].1)),
            }
        })
    }

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn tasks_added_before_the_pause_are_seen_by_the_replica_that_goes_on() {
        let redis = Redis::start().await;
        let db = Scratch::new("pause");
        let script = adding_then_clearing_model();
        let model = script.serve().await.expect("serves");
        let (_a, a) = replica_with_db(&model.url(), &redis, &db).await;
        let (_b, b) = replica_with_db(&model.url(), &redis, &db).await;
        let alice = admin("alice");

        let (key, state) = question(&round(a, &alice, "the release", None, None).await);
        // A added the tasks before it asked; B sees them.
        assert_eq!(
            list_tasks(b, Some(&alice)).await,
            "1. [ ] Tag v1.0\n2. [ ] Write the notes"
        );
        let done = round(b, &alice, "the release", Some(&state), Some(approve(&key))).await;

        assert_eq!(text(&done), "Done: Removed 2 tasks", "{done}");
        assert_eq!(script.requests().len(), 3, "each turn was asked for once");
        assert_eq!(list_tasks(a, Some(&alice)).await, "The board is empty.");
    }

    /// A `board --auth --redis --db` replica with the shared secret, talking to `model_url`.
    async fn replica_with_db(
        model_url: &str,
        redis: &Redis,
        db: &Scratch,
    ) -> (tokio::process::Child, std::net::SocketAddr) {
        let db = db.path.to_string_lossy();
        board_over_http_with_env(
            model_url,
            "scripted",
            &["--auth", "--redis", &redis.url(), "--db", &db],
            &[(SECRET_VAR, SECRET), ("LADOGA_STATE_SECRET", STATE_SECRET)],
        )
        .await
    }

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn a_paused_run_altered_in_redis_is_refused_and_nothing_runs() {
        let pair = Pair::start(STATE_SECRET).await;
        let (redis, script) = (&pair.redis, &pair.script);
        let asked = pair.asked_on_a().await;

        // One byte of the run kept in Redis changed, as someone with access to Redis would.
        let client = ::redis::Client::open(redis.url()).expect("a client");
        let mut connection = client
            .get_multiplexed_async_connection()
            .await
            .expect("connects");
        let keys: Vec<String> = ::redis::cmd("KEYS")
            .arg("ladoga:run:*")
            .query_async(&mut connection)
            .await
            .expect("keys");
        assert_eq!(keys.len(), 1, "{keys:?}");
        let mut kept: Vec<u8> = ::redis::cmd("GET")
            .arg(&keys[0])
            .query_async(&mut connection)
            .await
            .expect("the run");
        let middle = kept.len() / 2;
        kept[middle] ^= 1;
        ::redis::cmd("SET")
            .arg(&keys[0])
            .arg(kept)
            .arg("KEEPTTL")
            .query_async::<()>(&mut connection)
            .await
            .expect("altered");

        let answer = pair.approved_on_b(&asked).await;
        assert!(refused(&answer), "{answer}");
        assert!(answer.to_string().contains("does not verify"), "{answer}");
        assert_eq!(cleared(script), 0, "clear_board never ran");
        assert_eq!(script.requests().len(), 1, "no turn was asked for again");
    }

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn a_sessions_id_is_nowhere_in_redis_keys() {
        let pair = Pair::start(STATE_SECRET).await;
        let asked = pair.asked_on_a().await;
        let done = pair.approved_on_b(&asked).await;
        let named = done["result"]["content"][1]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a session: {done}"));
        let id = named
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("session: "))
            .unwrap_or_else(|| panic!("a session: {done}"));

        // What a reader of Redis sees: keys that spell nothing of the id that continues it.
        let client = ::redis::Client::open(pair.redis.url()).expect("a client");
        let mut connection = client
            .get_multiplexed_async_connection()
            .await
            .expect("connects");
        let keys: Vec<String> = ::redis::cmd("KEYS")
            .arg("ladoga:session:*")
            .query_async(&mut connection)
            .await
            .expect("keys");
        assert!(!keys.is_empty(), "the session is kept in Redis");
        assert!(keys.iter().all(|key| !key.contains(id)), "{id} in {keys:?}");
    }

    /// Two `board --auth --redis --db` replicas with the shared secrets, each logging to a file
    /// of `db`'s folder, behind nginx.
    struct Balanced {
        replicas: Vec<(
            tokio::process::Child,
            std::net::SocketAddr,
            std::path::PathBuf,
        )>,
        nginx: common::nginx::Nginx,
    }

    impl Balanced {
        async fn start(model_url: &str, redis: &Redis, db: &Scratch) -> Self {
            Self::routed(model_url, redis, db, Routing::RoundRobin).await
        }

        /// [`Self::start`], nginx routing as `routing` says.
        async fn routed(model_url: &str, redis: &Redis, db: &Scratch, routing: Routing) -> Self {
            Self::with_args(model_url, redis, db, routing, &[]).await
        }

        /// [`Self::routed`], each board given the arguments `more` too.
        async fn with_args(
            model_url: &str,
            redis: &Redis,
            db: &Scratch,
            routing: Routing,
            more: &[&str],
        ) -> Self {
            let mut replicas = Vec::new();
            for name in ["a", "b"] {
                let log = db.sibling(&format!("{name}.log"));
                let file = std::fs::File::create(&log).expect("a log file");
                let (db, redis) = (db.path.to_string_lossy().into_owned(), redis.url());
                let args = [&["--auth", "--redis", &redis, "--db", &db], more].concat();
                let (child, addr) = common::board_at(
                    common::free_addr(),
                    model_url,
                    "scripted",
                    &args,
                    &[(SECRET_VAR, SECRET), ("LADOGA_STATE_SECRET", STATE_SECRET)],
                    file.into(),
                )
                .await;
                replicas.push((child, addr, log));
            }
            let addrs: Vec<_> = replicas.iter().map(|(_, addr, _)| *addr).collect();
            let nginx = common::nginx::Nginx::start(&addrs, routing)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            Self { replicas, nginx }
        }

        /// The replica whose log says `line`, by its index.
        fn logged(&self, line: &str) -> Vec<usize> {
            (self.times(line).into_iter().enumerate())
                .filter(|(_, times)| *times > 0)
                .map(|(index, _)| index)
                .collect()
        }

        /// How many times each replica's log says `line`.
        fn times(&self, line: &str) -> Vec<usize> {
            (self.replicas.iter())
                .map(|(_, _, log)| {
                    std::fs::read_to_string(log).map_or(0, |text| text.matches(line).count())
                })
                .collect()
        }
    }

    const PAUSED: &str = "the run waits for its caller's answer";
    const RESUMED: &str = "the run resumes with its caller's answer";

    #[tokio::test]
    #[ignore = "needs redis-server, nginx and the MCP Python SDK: run by scripts/test"]
    async fn through_nginx_the_python_sdk_approves_and_the_run_goes_on_on_the_other_replica() {
        let redis = Redis::start().await;
        let db = Scratch::new("nginx-python");
        let script = adding_then_clearing_model();
        let model = script.serve().await.expect("serves");
        let balanced = Balanced::start(&model.url(), &redis, &db).await;

        let url = balanced.nginx.url();
        let line = python_as_admin("LADOGA_PYTHON", "python_approval.py", &[&url, "accept"]).await;

        assert_eq!(line["is_error"], false, "{line}");
        let text = line["text"].as_str().unwrap_or_default();
        assert_eq!(common::unsessioned(text), "Done: Removed 2 tasks", "{line}");
        assert_eq!(line["asked"].as_array().map(Vec::len), Some(1), "{line}");
        assert_eq!(script.requests().len(), 3, "each turn was asked for once");
        let (paused, resumed) = (balanced.logged(PAUSED), balanced.logged(RESUMED));
        assert_eq!(paused.len(), 1, "{paused:?}");
        assert_eq!(resumed.len(), 1, "{resumed:?}");
        assert_ne!(paused, resumed, "the retry landed on the other replica");
        // The tasks added before the pause were on the board the other replica cleared: both
        // replicas see the same, now empty, board.
        for (_, addr, _) in &balanced.replicas {
            assert_eq!(
                list_tasks(*addr, Some(&admin("alice"))).await,
                "The board is empty."
            );
        }
    }

    #[tokio::test]
    #[ignore = "needs redis-server, nginx and the MCP Python SDK: run by scripts/test"]
    async fn through_nginx_the_rounds_of_a_run_on_the_callers_model_land_on_both_replicas() {
        let redis = Redis::start().await;
        let db = Scratch::new("nginx-sample");
        let (callers, own) = (
            common::peer::callers_script(),
            ScriptedModel::new([Reply::text("The board's own model.")]),
        );
        let (callers_model, own_model) = (
            callers.serve().await.expect("serves"),
            own.serve().await.expect("serves"),
        );
        let balanced = Balanced::with_args(
            &own_model.url(),
            &redis,
            &db,
            Routing::RoundRobin,
            &["--caller-model"],
        )
        .await;

        let (url, model_url) = (balanced.nginx.url(), callers_model.url());
        let line = python_as_admin("LADOGA_PYTHON", "python_sample.py", &[&url, &model_url]).await;

        common::peer::check_sampled(&line, &callers, &own);
        // Four rounds: the call, then one a sample. Each of the three samples paused the run in
        // Redis, and the next round went on with it, on one replica or the other: both took some.
        let (paused, resumed) = (balanced.times(PAUSED), balanced.times(RESUMED));
        assert_eq!(paused.iter().sum::<usize>(), 3, "{paused:?}");
        assert_eq!(resumed.iter().sum::<usize>(), 3, "{resumed:?}");
        let took: Vec<_> = paused.iter().zip(&resumed).map(|(p, r)| p + r).collect();
        assert!(took.iter().all(|rounds| *rounds > 0), "{took:?}");
    }

    /// How `plan_week` tasks fare through nginx routing as `routing` says: 10 tasks started,
    /// then 4 `tasks/get` of each; how many of those found their task, and how many did not.
    async fn tasks_found_through(routing: Routing) -> (usize, usize) {
        let redis = Redis::start().await;
        let db = Scratch::new("nginx-tasks");
        let script = ScriptedModel::from_fn(|_| Reply::text("Planned."));
        let model = script.serve().await.expect("serves");
        let balanced = Balanced::routed(&model.url(), &redis, &db, routing).await;
        let (nginx, token) = (balanced.nginx.addr, admin("alice"));

        let mut tasks = Vec::new();
        for focus in 0..10 {
            let params = json!({
                "name": "plan_week",
                "arguments": {"focus": format!("week {focus}")},
                "task": {"ttl": 60_000},
            });
            let started = request(nginx, &token, "tools/call", params).await;
            assert_eq!(started["result"]["resultType"], "task", "{started}");
            tasks.push(
                started["result"]["taskId"]
                    .as_str()
                    .expect("an id")
                    .to_owned(),
            );
        }
        let (mut found, mut lost) = (0, 0);
        for task in &tasks {
            for _ in 0..4 {
                let got = request(nginx, &token, "tasks/get", json!({"taskId": task})).await;
                match got["result"]["taskId"].as_str() {
                    Some(id) => {
                        assert_eq!(id, task);
                        found += 1;
                    }
                    None => {
                        let message = got["error"]["message"].as_str().unwrap_or_default();
                        assert!(message.contains("Could not find task"), "{got}");
                        lost += 1;
                    }
                }
            }
        }
        (found, lost)
    }

    #[tokio::test]
    #[ignore = "needs redis-server and nginx: run by scripts/test"]
    async fn round_robin_sends_a_tasks_polls_to_a_replica_that_does_not_have_it() {
        let (found, lost) = tasks_found_through(Routing::RoundRobin).await;
        eprintln!("round robin: {found} of 40 polls found their task, {lost} did not");
        assert!(lost > 0 && found > 0, "found {found}, lost {lost}");
    }

    #[tokio::test]
    #[ignore = "needs redis-server and nginx: run by scripts/test"]
    async fn routed_by_caller_every_poll_finds_its_task() {
        let routing = Routing::TasksByCaller(&["plan_week"]);
        assert_eq!(tasks_found_through(routing).await, (40, 0));
    }

    #[tokio::test]
    #[ignore = "needs redis-server, nginx and the MCP Python SDK: run by scripts/test"]
    async fn through_nginx_routed_by_caller_the_python_sdk_approves_a_task() {
        let redis = Redis::start().await;
        let db = Scratch::new("nginx-python-task");
        let script = adding_then_clearing_model();
        let model = script.serve().await.expect("serves");
        let routing = Routing::TasksByCaller(&["plan_week"]);
        let balanced = Balanced::routed(&model.url(), &redis, &db, routing).await;

        let url = balanced.nginx.url();
        let line = python_as_admin("LADOGA_PYTHON", "python_task.py", &[&url, "accept"]).await;

        assert_eq!(line["status"], "completed", "{line}");
        let text = line["text"].as_str().unwrap_or_default();
        assert_eq!(common::unsessioned(text), "Done: Removed 2 tasks", "{line}");
        assert_eq!(line["asked"].as_array().map(Vec::len), Some(1), "{line}");
        assert_eq!(script.requests().len(), 3, "each turn was asked for once");
    }

    #[tokio::test]
    #[ignore = "needs redis-server and nginx: run by scripts/test"]
    async fn a_replica_killed_between_two_rounds_leaves_the_run_to_the_other() {
        let redis = Redis::start().await;
        let db = Scratch::new("nginx-kill");
        let script = adding_then_clearing_model();
        let model = script.serve().await.expect("serves");
        let mut balanced = Balanced::start(&model.url(), &redis, &db).await;
        let alice = admin("alice");
        let through = balanced.nginx.addr;

        let (key, state) = question(&round(through, &alice, "the release", None, None).await);
        let paused = balanced.logged(PAUSED);
        assert_eq!(paused.len(), 1, "{paused:?}");
        // The replica that asked dies before the answer comes.
        let (mut child, _, _) = balanced.replicas.remove(paused[0]);
        child.kill().await.expect("killed");

        let done = round(
            through,
            &alice,
            "the release",
            Some(&state),
            Some(approve(&key)),
        )
        .await;
        assert_eq!(text(&done), "Done: Removed 2 tasks", "{done}");
        assert_eq!(script.requests().len(), 3, "each turn was asked for once");
        assert_eq!(balanced.logged(RESUMED).len(), 1);
    }

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn replicas_with_different_secrets_refuse_each_others_rounds() {
        let pair = Pair::start("another secret, also long enough: 40 b").await;

        let answer = pair.approved_on_b(&pair.asked_on_a().await).await;

        assert!(refused(&answer), "{answer}");
        assert_eq!(cleared(&pair.script), 0, "clear_board never ran");
    }

    /// The secret the rotation tests rotate to: 40 bytes.
    const NEW_SECRET: &str = "the replicas' next request-state secret";

    #[tokio::test]
    #[ignore = "needs redis-server: run by scripts/test"]
    async fn a_secret_rotated_in_goes_on_with_rounds_and_runs_sealed_with_the_old_one() {
        // Step 1 of a rotation, B first: the new secret accepted beside the old one.
        let step_one =
            Pair::with(&sealing(STATE_SECRET), &rotating(STATE_SECRET, NEW_SECRET)).await;
        let done = step_one.approved_on_b(&step_one.asked_on_a().await).await;
        assert_eq!(text(&done), "Done: Removed 0 tasks", "{done}");

        // Step 2, half rolled: one replica seals with the new secret accepting the old, the
        // other still seals with the old accepting the new. Each goes on with the other's.
        let old_first = rotating(STATE_SECRET, NEW_SECRET);
        let new_first = rotating(NEW_SECRET, STATE_SECRET);
        for (a, b) in [(&old_first, &new_first), (&new_first, &old_first)] {
            let step_two = Pair::with(a, b).await;
            let done = step_two.approved_on_b(&step_two.asked_on_a().await).await;
            assert_eq!(text(&done), "Done: Removed 0 tasks", "{done}");
            assert_eq!(cleared(&step_two.script), 1, "clear_board ran once");
        }

        // Step 3, the old secret dropped: what it sealed is refused, and nothing runs.
        let step_three = Pair::with(&sealing(STATE_SECRET), &sealing(NEW_SECRET)).await;
        let answer = step_three
            .approved_on_b(&step_three.asked_on_a().await)
            .await;
        assert!(refused(&answer), "{answer}");
        assert_eq!(cleared(&step_three.script), 0, "clear_board never ran");
    }
}

/// The board run with the environment `env`, which must make it refuse to start: its stderr.
async fn refused_start(env: &[(&str, &str)]) -> String {
    let output = tokio::process::Command::new(common::exe("board"))
        .args(["--http", &common::free_addr().to_string()])
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("the board runs");
    assert_eq!(output.status.code(), Some(1));
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test]
async fn the_board_refuses_a_short_state_secret() {
    let stderr = refused_start(&[("LADOGA_STATE_SECRET", "too short")]).await;
    assert!(stderr.contains("LADOGA_STATE_SECRET"), "{stderr}");
    assert!(stderr.contains("at least 32 bytes"), "{stderr}");

    let long = "a request-state secret of 40 bytes, long";
    let accepted_short = [
        ("LADOGA_STATE_SECRET", long),
        ("LADOGA_STATE_SECRET_ACCEPTED", "too short"),
    ];
    let stderr = refused_start(&accepted_short).await;
    assert!(stderr.contains("LADOGA_STATE_SECRET_ACCEPTED"), "{stderr}");
    assert!(stderr.contains("at least 32 bytes"), "{stderr}");

    let stderr = refused_start(&[("LADOGA_STATE_SECRET_ACCEPTED", long)]).await;
    assert!(stderr.contains("set LADOGA_STATE_SECRET"), "{stderr}");
}

#[tokio::test]
async fn the_tasks_outlive_a_restart_of_every_replica() {
    let db = Scratch::new("restart");
    let model = ladoga::testing::ScriptedModel::new([])
        .serve()
        .await
        .expect("serves");
    let start = || async {
        let db = db.path.to_string_lossy().into_owned();
        common::board_over_http_with(&model.url(), "scripted", &["--db", &db]).await
    };
    let (one, a) = start().await;
    let (other, b) = start().await;
    let client = common::connect(a).await;
    client
        .tools()
        .call("add_task", [("title", "Survive the restart")])
        .await
        .expect("added");
    drop(client);
    assert_eq!(
        list_tasks(b, None).await,
        "1. [ ] Survive the restart",
        "seen by the other replica"
    );
    drop((one, other));
    tokio::time::sleep(Duration::from_millis(300)).await;

    let (_again, c) = start().await;
    assert_eq!(list_tasks(c, None).await, "1. [ ] Survive the restart");
}

/// `list_tasks` of the board at `addr`, as the holder of `token` if the board asks for one.
async fn list_tasks(addr: std::net::SocketAddr, token: Option<&str>) -> String {
    let mut client = common::auth::client_with(addr, token);
    client.connect().await.expect("connects");
    let listed = client.tools().call("list_tasks", ()).await.expect("lists");
    common::text(&listed)
}
