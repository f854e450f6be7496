//! A neva handler takes five parameters and the orchestrator's uses two: a fourth MCP argument
//! is one error at that parameter, showing the way out.

use ladoga::orchestrator;

#[orchestrator]
async fn book_trip(city: String, nights: u32, budget: u32, traveller: String) -> String {
    format!("Book {nights} nights in {city} for {traveller}, {budget} at most.")
}

fn main() {}
