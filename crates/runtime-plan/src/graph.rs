//! The plan's dependency graph (consumers -> resources -> items); its renderings are in the
//! `plan-render` crate.
//!
//! The graph is a view of a [`Plan`], built on demand and never stored in it: this module reads
//! the plan, and the plan knows nothing of it.

use serde::Serialize;

use crate::plan::Plan;

/// A layer of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Layer {
    /// A workload or member.
    Consumer,
    /// A resource.
    Resource,
    /// An AWS item.
    Item,
}

/// A node of the graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphNode {
    /// Unique node id (`consumer:metabase`, `resource:main-db`, `item:main-db_proxy`).
    pub id: String,
    /// What is shown.
    pub label: String,
    /// Its layer.
    pub layer: Layer,
}

/// An edge of the graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphEdge {
    /// From node id.
    pub from: String,
    /// To node id.
    pub to: String,
    /// `uses`, `declares`, `runs`, `on`.
    pub label: String,
}

/// Consumers -> resources -> items, in stable order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Graph {
    /// Nodes: consumers, then resources, then items, in plan order.
    pub nodes: Vec<GraphNode>,
    /// Edges in plan order.
    pub edges: Vec<GraphEdge>,
}

impl Plan {
    /// Consumers -> resources -> items, as data (see [`build_graph`]).
    pub fn graph(&self) -> Graph {
        build_graph(self)
    }
}

fn node(id: String, label: String, layer: Layer) -> GraphNode {
    GraphNode { id, label, layer }
}

fn edge(from: String, to: String, label: &str) -> GraphEdge {
    GraphEdge { from, to, label: label.to_owned() }
}

/// Builds the graph of a plan: nodes for every consumer (workloads then members, in binding
/// order), resource and item; edges `uses` (consumer -> resource), `declares` (resource ->
/// its items), `runs` (workload -> its items) and `on` (item -> an item it references).
pub fn build_graph(plan: &Plan) -> Graph {
    let mut g = Graph::default();
    let mut consumers: Vec<String> = plan.workloads.iter().map(|w| w.name.to_string()).collect();
    let mut seen: std::collections::BTreeSet<&str> = plan.workloads.iter().map(|w| w.name.as_str()).collect();
    for b in &plan.bindings {
        if seen.insert(b.consumer.as_str()) {
            consumers.push(b.consumer.to_string());
        }
    }
    for c in &consumers {
        g.nodes.push(node(format!("consumer:{c}"), c.clone(), Layer::Consumer));
    }
    for r in &plan.resources {
        g.nodes.push(node(
            format!("resource:{}", r.name),
            format!("{} ({} {})", r.name, r.kind.as_str(), r.size),
            Layer::Resource,
        ));
    }
    for i in &plan.items {
        g.nodes.push(node(
            format!("item:{}", i.id),
            format!("{} {}", i.kind().as_str(), i.physical_name),
            Layer::Item,
        ));
    }
    for b in &plan.bindings {
        g.edges.push(edge(format!("consumer:{}", b.consumer), format!("resource:{}", b.resource), "uses"));
    }
    for r in &plan.resources {
        for i in &r.items {
            g.edges.push(edge(format!("resource:{}", r.name), format!("item:{i}"), "declares"));
        }
    }
    for w in &plan.workloads {
        for i in &w.items {
            g.edges.push(edge(format!("consumer:{}", w.name), format!("item:{i}"), "runs"));
        }
    }
    for i in &plan.items {
        for d in &i.depends_on {
            if !d.is_empty() {
                g.edges.push(edge(format!("item:{}", i.id), format!("item:{d}"), "on"));
            }
        }
    }
    g
}
