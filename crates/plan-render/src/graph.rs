//! The graph's renderings: a Mermaid flowchart and Graphviz DOT (`runway graph`).

use std::fmt::Write as _;

use runtime_plan::graph::{Graph, Layer};

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Mermaid flowchart (left to right), one subgraph per layer; node ids are `n<index>`.
pub fn render_mermaid(graph: &Graph) -> String {
    let mut out = String::from("flowchart LR\n");
    // Node positions by id, built once (a search per edge end would be O(n^2)).
    let at: std::collections::BTreeMap<&str, usize> =
        graph.nodes.iter().enumerate().rev().map(|(i, n)| (n.id.as_str(), i)).collect();
    let idx = |id: &str| at.get(id).copied();
    for (layer, title) in
        [(Layer::Consumer, "consumers"), (Layer::Resource, "resources"), (Layer::Item, "aws")]
    {
        let _ = writeln!(out, "  subgraph {title}");
        for (i, n) in graph.nodes.iter().enumerate().filter(|(_, n)| n.layer == layer) {
            let label = n.label.replace('"', "#quot;");
            let _ = writeln!(out, "    n{i}[\"{label}\"]");
        }
        let _ = writeln!(out, "  end");
    }
    for e in &graph.edges {
        if let (Some(a), Some(b)) = (idx(&e.from), idx(&e.to)) {
            let _ = writeln!(out, "  n{a} -->|{}| n{b}", e.label);
        }
    }
    out
}

/// Graphviz DOT (`digraph`, left to right); node ids are the graph's ids.
pub fn render_dot(graph: &Graph) -> String {
    let mut out = String::from("digraph plan {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
    for n in &graph.nodes {
        let shape = match n.layer {
            Layer::Consumer => "ellipse",
            Layer::Resource => "box3d",
            Layer::Item => "box",
        };
        let _ = writeln!(out, "  \"{}\" [label=\"{}\", shape={shape}];", escape(&n.id), escape(&n.label));
    }
    for e in &graph.edges {
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [label=\"{}\"];",
            escape(&e.from),
            escape(&e.to),
            escape(&e.label)
        );
    }
    out.push_str("}\n");
    out
}
