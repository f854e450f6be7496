//! Where the board keeps its tasks: in the process's memory, or in a SQLite database (`--db`)
//! that every replica on the host opens, which outlives a restart.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension};

/// One task, as listed: its title and whether it is done. Its id is its place in the list.
pub struct Task {
    pub title: String,
    pub done: bool,
}

/// The tasks, shared by every tool through neva's DI.
pub enum Board {
    Memory(Mutex<Vec<Task>>),
    /// One connection per process, in WAL mode, waiting up to 5 s for another process's write.
    Sqlite(Arc<Mutex<Connection>>),
}

impl Default for Board {
    fn default() -> Self {
        Self::Memory(Mutex::default())
    }
}

impl Board {
    /// The board kept in the SQLite database at `path`, created if missing.
    pub fn open(path: &Path) -> Result<Self, String> {
        let opened = || -> rusqlite::Result<Connection> {
            let connection = Connection::open(path)?;
            connection.busy_timeout(std::time::Duration::from_secs(5))?;
            connection.pragma_update(None, "journal_mode", "WAL")?;
            connection.execute_batch(
                "CREATE TABLE IF NOT EXISTS tasks (
                     id INTEGER PRIMARY KEY AUTOINCREMENT,
                     title TEXT NOT NULL,
                     done INTEGER NOT NULL DEFAULT 0
                 )",
            )?;
            Ok(connection)
        };
        opened()
            .map(|connection| Self::Sqlite(Arc::new(Mutex::new(connection))))
            .map_err(|error| format!("cannot open the board `{}`: {error}", path.display()))
    }

    /// Adds a task; its id.
    pub async fn add(&self, title: String) -> Result<usize, String> {
        match self {
            Self::Memory(tasks) => {
                let mut tasks = lock(tasks);
                tasks.push(Task { title, done: false });
                Ok(tasks.len())
            }
            Self::Sqlite(connection) => {
                sqlite(connection, move |connection| {
                    let transaction = connection.transaction()?;
                    transaction.execute("INSERT INTO tasks (title) VALUES (?1)", [&title])?;
                    let count: i64 =
                        transaction
                            .query_row("SELECT COUNT(*) FROM tasks", [], |row| row.get(0))?;
                    transaction.commit()?;
                    Ok(usize::try_from(count).unwrap_or_default())
                })
                .await
            }
        }
    }

    /// Every task, in the order they were added.
    pub async fn list(&self) -> Result<Vec<Task>, String> {
        match self {
            Self::Memory(tasks) => Ok(lock(tasks)
                .iter()
                .map(|task| Task {
                    title: task.title.clone(),
                    done: task.done,
                })
                .collect()),
            Self::Sqlite(connection) => {
                sqlite(connection, |connection| {
                    let mut listed =
                        connection.prepare("SELECT title, done FROM tasks ORDER BY id")?;
                    let tasks = listed.query_map([], |row| {
                        Ok(Task {
                            title: row.get(0)?,
                            done: row.get::<_, i64>(1)? != 0,
                        })
                    })?;
                    tasks.collect()
                })
                .await
            }
        }
    }

    /// Marks the task with this id done; its title, `None` when there is no such task.
    pub async fn complete(&self, id: usize) -> Result<Option<String>, String> {
        let Some(index) = id.checked_sub(1) else {
            return Ok(None);
        };
        match self {
            Self::Memory(tasks) => Ok(lock(tasks).get_mut(index).map(|task| {
                task.done = true;
                task.title.clone()
            })),
            Self::Sqlite(connection) => {
                sqlite(connection, move |connection| {
                    let transaction = connection.transaction()?;
                    let found: Option<(i64, String)> = transaction
                        .query_row(
                            "SELECT id, title FROM tasks ORDER BY id LIMIT 1 OFFSET ?1",
                            [index as i64],
                            |row| Ok((row.get(0)?, row.get(1)?)),
                        )
                        .optional()?;
                    if let Some((row, _)) = &found {
                        transaction.execute("UPDATE tasks SET done = 1 WHERE id = ?1", [row])?;
                    }
                    transaction.commit()?;
                    Ok(found.map(|(_, title)| title))
                })
                .await
            }
        }
    }

    /// Removes every task; how many there were.
    pub async fn clear(&self) -> Result<usize, String> {
        match self {
            Self::Memory(tasks) => {
                let mut tasks = lock(tasks);
                let removed = tasks.len();
                tasks.clear();
                Ok(removed)
            }
            Self::Sqlite(connection) => {
                sqlite(connection, |connection| {
                    connection.execute("DELETE FROM tasks", [])
                })
                .await
            }
        }
    }

    /// What asks whether this board answers, for a readiness probe, kept apart from the board
    /// itself, which neva's DI holds.
    pub fn answers(&self) -> Answers {
        match self {
            Self::Memory(_) => Answers(None),
            Self::Sqlite(connection) => Answers(Some(Arc::clone(connection))),
        }
    }
}

/// Asks whether a [`Board`] answers: its database a trivial query (a board in memory always
/// does).
pub struct Answers(Option<Arc<Mutex<Connection>>>);

impl Answers {
    /// `Ok` when the board answers.
    pub async fn check(&self) -> Result<(), String> {
        let Some(connection) = &self.0 else {
            return Ok(());
        };
        sqlite(connection, |connection| {
            connection.query_row("SELECT count(*) FROM tasks", [], |_| Ok(()))
        })
        .await
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `work` on the database off the async threads: a write may wait for another process's.
async fn sqlite<T: Send + 'static>(
    connection: &Arc<Mutex<Connection>>,
    work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
) -> Result<T, String> {
    let connection = Arc::clone(connection);
    tokio::task::spawn_blocking(move || work(&mut lock(&connection)))
        .await
        .map_err(|error| format!("the board's database work failed: {error}"))?
        .map_err(|error| format!("the board's database failed: {error}"))
}
