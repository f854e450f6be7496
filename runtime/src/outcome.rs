//! How an orchestration ended.

use svir::FinishReason;

/// What a finished orchestration returns.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// The model's final answer.
    pub text: String,
    /// How many requests were sent to the model.
    pub turns: usize,
    /// The tokens those requests used, summed over the turns the server reported.
    pub usage: TokenUsage,
    /// Why the loop stopped.
    pub stop: Stop,
    /// Why the model stopped writing its final answer; `Length` means the output limit cut it.
    pub finish: FinishReason,
}

/// Why an orchestration stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without calling a tool.
    Answered,
    /// The turn bound was reached and, under [`OnLimit::Answer`](crate::OnLimit::Answer), the
    /// model was asked for an answer with tools refused.
    TurnLimit,
}

/// Tokens used, summed over the requests of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TokenUsage {
    /// Tokens the model read.
    pub input: u64,
    /// Tokens the model wrote.
    pub output: u64,
}

impl TokenUsage {
    /// Adds what one answer used, when the server reported it.
    pub fn add(&mut self, usage: Option<svir::Usage>) {
        if let Some(usage) = usage {
            self.input += usage.input;
            self.output += usage.output;
        }
    }

    /// Input and output together.
    pub fn total(&self) -> u64 {
        self.input + self.output
    }
}
