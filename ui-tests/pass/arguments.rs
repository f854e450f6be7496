//! An orchestrator takes three MCP arguments, and a `Context` besides them; more arguments go in
//! one `Json<T>` struct argument, which publishes `T`'s fields under its name.

use ladoga::orchestrator;
use neva::prelude::*;
use serde::Deserialize;

/// Three arguments and the context.
#[orchestrator]
async fn plan_trip(ctx: Context, city: String, nights: u32, budget: u32) -> String {
    let tools = ctx.tools().list().await.len();
    format!("Plan {nights} nights in {city} for {budget} at most, with {tools} tools.")
}

/// What `book_trip` needs to know.
#[derive(Deserialize, JsonSchema)]
struct Trip {
    city: String,
    nights: u32,
    budget: u32,
    traveller: String,
}

/// Four values, in one argument.
#[orchestrator]
async fn book_trip(trip: Json<Trip>) -> String {
    let Trip {
        city,
        nights,
        budget,
        traveller,
    } = trip.into_inner();
    format!("Book {nights} nights in {city} for {traveller}, {budget} at most.")
}

fn main() {}
