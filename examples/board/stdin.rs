//! Stops a stdio server when its client closes stdin.
//!
//! neva's stdio transport reads stdin on a thread of its own and keeps the server running after
//! end of input, so a server whose client crashed is left behind. Here the server's stdin
//! becomes a pipe this module feeds from the real one: at end of input it asks the server to
//! shut down, then closes the pipe so neva's reader sees the end too.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsFd;

use neva::app::ShutdownHandle;

/// Puts a pipe in place of stdin and forwards the real stdin into it, shutting the server down
/// through `shutdown` when the real stdin ends.
pub fn shut_down_at_end_of_input(shutdown: ShutdownHandle) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let real = nix::unistd::dup(stdin.as_fd())?;
    let (pipe_out, pipe_in) = nix::unistd::pipe()?;
    nix::unistd::dup2_stdin(&pipe_out)?;
    drop(pipe_out);

    let mut real = File::from(real);
    let mut pipe_in = File::from(pipe_in);
    std::thread::Builder::new()
        .name("stdin-forward".into())
        .spawn(move || {
            let mut buffer = [0u8; 8192];
            loop {
                match real.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        if pipe_in.write_all(&buffer[..read]).is_err() {
                            break;
                        }
                    }
                }
            }
            shutdown.shutdown();
            drop(pipe_in);
        })?;
    Ok(())
}
