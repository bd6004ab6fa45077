//! Go to definition (a `uses` entry to its resource) and references (a resource to its
//! consumers: the `uses` entries of root workloads and members), in the text each file was
//! analysed with.

use std::ops::Range;
use std::path::PathBuf;

use runway_schema::syntax;

use crate::analysis::Analysis;
use crate::position::SourceText;

/// A byte range in a file, with the file's text to turn it into a position.
#[derive(Clone, Debug)]
pub struct Place {
    /// The file.
    pub file: PathBuf,
    /// Its text.
    pub text: SourceText,
    /// The bytes.
    pub bytes: Range<usize>,
}

/// Where the resource `name` is declared: its key under `resources`.
pub fn definition(analysis: &Analysis, name: &str) -> Option<Place> {
    let tree = analysis.root_tree()?;
    let (key, _) = tree.root().get("resources")?.get_entry(name)?;
    Some(Place { file: analysis.root.clone(), text: analysis.root_text.clone(), bytes: key.span() })
}

/// Every `uses` entry naming `name` in the root and its members, in file order; with the
/// declaration first when `declaration` is set.
pub fn references(analysis: &Analysis, name: &str, declaration: bool) -> Vec<Place> {
    let mut out = Vec::new();
    if declaration && let Some(place) = definition(analysis, name) {
        out.push(place);
    }
    if let Ok(tree) = syntax::parse("", analysis.root_text.as_str()) {
        let workloads = tree.root().get("workloads");
        for (_, w) in workloads.into_iter().flat_map(|w| w.entries()) {
            for item in w.get("uses").into_iter().flat_map(|u| u.items()) {
                // A name, or `{ <name>: <mode> }` whose key names it.
                let named = match item.as_str() {
                    Some(n) => (n == name).then(|| item.span()),
                    None => item.get_entry(name).map(|(key, _)| key.span()),
                };
                if let Some(bytes) = named {
                    let text = analysis.root_text.clone();
                    out.push(Place { file: analysis.root.clone(), text, bytes });
                }
            }
        }
    }
    for file in &analysis.member_files {
        let Some(text) = analysis.text(file) else { continue };
        let Ok(tree) = syntax::parse("", text.as_str()) else { continue };
        for item in tree.root().get("uses").into_iter().flat_map(|u| u.items()) {
            if item.as_str() == Some(name) {
                out.push(Place { file: file.clone(), text: text.clone(), bytes: item.span() });
            }
        }
    }
    out
}
