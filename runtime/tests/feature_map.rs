//! The crate's feature map (`src/docs/ladoga.md`) and the README's layout table name every
//! folder and root file of `src/` and every feature of the crate, so that a new one is placed
//! where a reader looks.

use std::path::Path;

/// Every folder and root file of `src/` a reader is pointed to (the crate root, the unit tests'
/// and the Markdown doc tests' files are not).
fn parts() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut parts: Vec<String> = std::fs::read_dir(src)
        .expect("reads src")
        .map(|entry| entry.expect("an entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            match path.is_dir() {
                true if name != "docs" => Some(format!("`{name}/`")),
                false if !["lib.rs", "doctests.rs", "__private.rs"].contains(&name.as_str()) => {
                    Some(format!("`{name}`"))
                }
                _ => None,
            }
        })
        .collect();
    parts.sort();
    parts
}

/// The crate's features, from its manifest.
fn features() -> Vec<String> {
    let manifest = include_str!("../Cargo.toml");
    manifest
        .lines()
        .skip_while(|line| line.trim() != "[features]")
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter_map(|line| line.split_once('=').map(|(name, _)| name.trim()))
        .filter(|name| !name.is_empty() && !name.starts_with('#') && *name != "default")
        .map(|name| format!("`{name}`"))
        .collect()
}

fn missing_in(page: &str, text: &str) -> Vec<String> {
    let missing: Vec<_> = parts()
        .into_iter()
        .chain(features())
        .filter(|name| !text.contains(name.as_str()))
        .collect();
    if !missing.is_empty() {
        eprintln!("{page} does not name {missing:?}");
    }
    missing
}

#[test]
fn the_feature_map_names_every_folder_file_and_feature() {
    let map = include_str!("../src/docs/ladoga.md");
    assert!(missing_in("src/docs/ladoga.md", map).is_empty());
}

#[test]
fn the_readmes_layout_names_every_folder_file_and_feature() {
    let readme = include_str!("../../README.md");
    let layout: String = readme
        .lines()
        .skip_while(|line| *line != "## Layout")
        .collect::<Vec<_>>()
        .join("\n");
    assert!(missing_in("README.md's layout", &layout).is_empty());
}
