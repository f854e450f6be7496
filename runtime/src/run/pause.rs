//! A pause: the run stops at a question its caller answers in a later round (an approval, a
//! question of the model's, a sample of the caller's model). A value the turns hand up, made the
//! run's error in one place, [`Orchestration::paused`], once the run is kept.

use svir::Toolbox;

use crate::error::RunError;
use crate::model::CompletionModel;
use crate::run::{Orchestration, Run};

/// The question a run stopped at, answered in a later round of its tool call.
#[derive(Debug)]
pub(crate) struct Pause(pub(crate) neva::error::Error);

/// Why a part of a run did not go on: it paused, or it failed.
#[derive(Debug)]
pub(crate) enum Halt {
    Paused(Pause),
    Failed(RunError),
}

impl From<RunError> for Halt {
    fn from(error: RunError) -> Self {
        Self::Failed(error)
    }
}

impl From<Pause> for Halt {
    fn from(pause: Pause) -> Self {
        Self::Paused(pause)
    }
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The run's error for `halt`: a pause keeps `run` for the next round first (unless it was
    /// kept before its question was asked), and is then [`RunError::Paused`].
    pub(super) async fn halted(&self, halt: Halt, run: &Run) -> RunError {
        self.book_last(&run.usage).await; // quota: what it spent, booked as it stops or pauses
        match halt {
            Halt::Failed(error) => error,
            Halt::Paused(Pause(question)) => {
                if !run.kept
                    && let Err(error) = self.pause(run).await
                {
                    return error; // rounds: a run that cannot be kept cannot pause
                }
                RunError::Paused(question)
            }
        }
    }
}
