//! nginx (Debian's package, installed by `scripts/services`) in front of replicas of the board:
//! round robin, no stickiness (or, for MCP tasks, each caller's task traffic to one replica), on
//! a free loopback port, its files in a folder of its own, and stopped, workers and all, when
//! dropped. The load harness's `--replicas` and the replica tests both run it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How nginx picks a replica for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)] // the load harness balances round robin only
pub enum Routing {
    /// Each request to the next replica.
    RoundRobin,
    /// The requests of MCP tasks (`tasks/*`, and the calls of the tools named here, which may
    /// start one) to one replica per caller, by its `Authorization` header and address; every
    /// other request round robin. A task lives in the process that started it.
    TasksByCaller(&'static [&'static str]),
}

/// A running nginx balancing `/mcp` over the replicas it was given, and, if given their
/// Restate endpoints, those too.
pub struct Balancer {
    pub addr: SocketAddr,
    /// Where the replicas' Restate endpoints are served through it, if they were given.
    #[allow(dead_code)] // the durable tests only
    pub restate: Option<SocketAddr>,
    dir: PathBuf,
    master: tokio::process::Child,
}

impl Balancer {
    /// Starts nginx in front of `replicas`, and waits until it accepts connections; why not,
    /// saying what to do when nginx is not installed.
    pub async fn start(replicas: &[SocketAddr], routing: Routing) -> Result<Self, String> {
        Self::start_with_endpoints(replicas, routing, &[]).await
    }

    /// [`Self::start`], serving the replicas' Restate `endpoints` too, round robin over HTTP/2
    /// (restate-server's protocol) at [`Self::restate`]: every replica one deployment, at one
    /// URI.
    pub async fn start_with_endpoints(
        replicas: &[SocketAddr],
        routing: Routing,
        endpoints: &[SocketAddr],
    ) -> Result<Self, String> {
        let addr = super::free_addr();
        let restate = match endpoints.is_empty() {
            true => None,
            false => Some(super::free_addr()),
        };
        let dir = std::env::temp_dir().join(format!(
            "ladoga-nginx-{}-{}",
            std::process::id(),
            addr.port()
        ));
        std::fs::create_dir_all(&dir)
            .and_then(|()| {
                std::fs::write(
                    dir.join("nginx.conf"),
                    config(
                        addr,
                        replicas,
                        routing,
                        &dir,
                        &restate_server(restate, endpoints),
                    ),
                )
            })
            .map_err(|error| format!("cannot write nginx's configuration: {error}"))?;
        let master = tokio::process::Command::new(binary())
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| {
                format!("cannot start nginx ({error}): `scripts/services install` installs it")
            })?;
        let balancer = Self {
            addr,
            restate,
            dir,
            master,
        };
        for _ in 0..300 {
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                return Ok(balancer);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(format!("nginx does not listen at {addr} after 30 s"))
    }

    /// The MCP endpoint through it.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// What nginx logged at `warn` and above so far: why it answered a request itself (a `502`,
    /// say), for a run that failed.
    #[allow(dead_code)] // the load harness only
    pub fn logged(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
        log.lines()
            .filter(|line| {
                ["[warn]", "[error]", "[crit]"]
                    .iter()
                    .any(|level| line.contains(level))
            })
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        // Stopped through its master, which takes its workers with it: killing the master alone
        // would leave them running.
        let _ = std::process::Command::new(binary())
            .arg("-p")
            .arg(&self.dir)
            .arg("-c")
            .arg(self.dir.join("nginx.conf"))
            .args(["-s", "stop"])
            .stderr(std::process::Stdio::null())
            .status();
        // `-s stop` only signals the master: it is given the time to stop its workers before
        // the child is dropped, which kills it, and would leave them running.
        for _ in 0..50 {
            if !matches!(self.master.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Debian's nginx, which is in `/usr/sbin`, a folder not every `PATH` holds.
fn binary() -> &'static str {
    if Path::new("/usr/sbin/nginx").exists() {
        "/usr/sbin/nginx"
    } else {
        "nginx"
    }
}

/// The configuration: `/mcp` proxied to the replicas as `routing` says, over kept-alive
/// connections, streams passed on as they come, and the caller's `Host` passed on (neva refuses a
/// host it does not serve, as DNS rebinding protection). A request is passed on to another
/// replica only when the first cannot have run it: its connection was refused (nothing was
/// sent), or it answered `503` (a draining board runs nothing it refuses), in `@draining`,
/// which tries each replica once. nginx never re-sends a POST after a timeout, nor, in `/mcp`,
/// after a dropped connection. In `@draining`, which only a draining board's `503` leads to, a
/// connection refused or dropped by that board (which stops listening as it exits) is passed on
/// too: it ran nothing. An idle kept-alive connection
/// is closed by nginx after 4 s, within the 5 s a stopping board waits for its callers to close
/// theirs: a connection the board closed under nginx would turn the POST sent on it into a `502`.
/// `also` is put in the `http` block after that server: more servers.
pub fn config(
    addr: SocketAddr,
    replicas: &[SocketAddr],
    routing: Routing,
    dir: &Path,
    also: &str,
) -> String {
    let servers: String = replicas
        .iter()
        .map(|replica| format!("        server {replica} max_fails=0;\n"))
        .collect();
    let (pools, pass) = match routing {
        Routing::RoundRobin => (String::new(), "http://replicas"),
        Routing::TasksByCaller(tools) => {
            let tools: String = tools
                .iter()
                .map(|tool| format!("        \"tools/call {tool}\" by_caller;\n"))
                .collect();
            let pools = format!(
                "    upstream by_caller {{
        hash $http_authorization$remote_addr consistent;
{servers}        keepalive 64;
        keepalive_timeout 4s;
    }}
    map \"$http_mcp_method $http_mcp_name\" $pool {{
        \"~^tasks/\" by_caller;
{tools}        default replicas;
    }}
"
            );
            (pools, "http://$pool")
        }
    };
    let proxy = format!(
        "            proxy_pass {pass};
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_read_timeout 300s;
"
    );
    let dir = dir.display();
    format!(
        "daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream replicas {{
{servers}        keepalive 64;
        keepalive_timeout 4s;
    }}
{pools}    server {{
        listen {addr};
        location /mcp {{
{proxy}            proxy_next_upstream error timeout;
            proxy_intercept_errors on;
            error_page 503 = @draining;
        }}
        location @draining {{
{proxy}            proxy_next_upstream error http_503 non_idempotent;
        }}
    }}
{also}}}
"
    )
}

/// The server that passes restate-server's calls on to the replicas' Restate `endpoints` at
/// `addr` (HTTP/2 without TLS, streamed both ways); none when there are none. A call whose
/// connection is refused goes to the next endpoint: nothing of it ran. Its streams may last as
/// long as a step of a run.
fn restate_server(addr: Option<SocketAddr>, endpoints: &[SocketAddr]) -> String {
    let Some(addr) = addr else {
        return String::new();
    };
    let servers: String = endpoints
        .iter()
        .map(|endpoint| format!("        server {endpoint} max_fails=0;\n"))
        .collect();
    format!(
        "    upstream restate_endpoints {{
{servers}    }}
    server {{
        listen {addr} http2;
        location / {{
            grpc_pass grpc://restate_endpoints;
            grpc_next_upstream error;
            grpc_read_timeout 3600s;
            grpc_send_timeout 3600s;
        }}
    }}
"
    )
}
