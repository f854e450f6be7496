//! A SQLite board of a test's own, in the temporary folder.

/// A database path of the test's own, removed with its WAL files when dropped.
pub struct Scratch {
    pub path: std::path::PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Self {
        let unique = format!(
            "ladoga-board-{name}-{}-{}.db",
            std::process::id(),
            super::auth::now()
        );
        Self {
            path: std::env::temp_dir().join(unique),
        }
    }
}

impl Scratch {
    /// A file beside the database, removed with it.
    pub fn sibling(&self, name: &str) -> std::path::PathBuf {
        let mut path = self.path.clone().into_os_string();
        path.push(format!(".{name}"));
        path.into()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", ".a.log", ".b.log"] {
            let mut path = self.path.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}
