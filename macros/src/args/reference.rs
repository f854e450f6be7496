//! The attribute's reference, `runtime/src/docs/orchestrator.md`, against the table of
//! arguments: every argument the macro takes has a row in the reference's table and a section
//! whose heading names it, and the table names no argument the macro does not take.

use super::table::ARGS;

/// The attribute's reference, the docs of `ladoga::orchestrator`.
const REFERENCE: &str = include_str!("../../../runtime/src/docs/orchestrator.md");

/// The lines of the reference outside its code blocks, where a `#` starts a heading.
fn prose() -> Vec<&'static str> {
    let mut fenced = false;
    let mut prose = Vec::new();
    for line in REFERENCE.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push(line);
        }
    }
    prose
}

/// The argument each row of the table under `# Arguments` names in its first cell.
fn rows() -> Vec<&'static str> {
    prose()
        .into_iter()
        .skip_while(|line| *line != "# Arguments")
        .skip(1)
        .take_while(|line| !line.starts_with('#'))
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|cell| cell.split_once("` |").map(|(name, _)| name))
        .collect()
}

#[test]
fn every_argument_has_a_row_in_the_reference() {
    let rows = rows();
    let missing: Vec<_> = ARGS
        .iter()
        .map(|spec| spec.name)
        .filter(|name| !rows.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "runtime/src/docs/orchestrator.md: no row \"| `name` |\" in the table under \
         `# Arguments` for {missing:?}"
    );
}

#[test]
fn every_argument_has_a_section_in_the_reference() {
    let headings: Vec<_> = prose()
        .into_iter()
        .filter(|line| line.starts_with('#'))
        .collect();
    let missing: Vec<_> = ARGS
        .iter()
        .map(|spec| spec.name)
        .filter(|name| {
            let named = format!("`{name}`");
            !headings.iter().any(|heading| heading.contains(&named))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "runtime/src/docs/orchestrator.md: no heading names {missing:?}"
    );
}

#[test]
fn the_reference_names_no_argument_the_macro_does_not_take() {
    let unknown: Vec<_> = rows()
        .into_iter()
        .filter(|row| ARGS.iter().all(|spec| spec.name != *row))
        .collect();
    assert!(
        unknown.is_empty(),
        "runtime/src/docs/orchestrator.md: rows for arguments `#[orchestrator]` does not take: \
         {unknown:?}"
    );
}

#[test]
fn the_readmes_list_names_every_argument() {
    const README: &str = include_str!("../../../README.md");
    let section: String = README
        .lines()
        .skip_while(|line| *line != "## Macro arguments")
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .collect::<Vec<_>>()
        .join(" ");
    let missing: Vec<_> = ARGS
        .iter()
        .map(|spec| spec.name)
        .filter(|name| !section.contains(&format!("`{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md: the section \"Macro arguments\" does not name {missing:?}"
    );
}
