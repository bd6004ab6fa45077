//! The resources of one environment as the planner sees them: declared ones in file order, then
//! the implicit `shared-<engine>` ones members require, each with its size, variables and
//! Infisical folder, and found by name.

use std::sync::Arc;

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::{
    Engine, Environment, Product, ResourceSpec, Runway, values::variable_prefix, variable_suffixes,
};

use super::cat;
use crate::plan::{InfisicalFolder, Origin};

/// A resource as the planner sees it: declared or implicit.
pub(in crate::lower) struct Res {
    /// Its position in [`Resources`].
    pub(in crate::lower) index: usize,
    pub(in crate::lower) name: CompactString,
    pub(in crate::lower) spec: ResourceSpec,
    /// Its size in this environment.
    pub(in crate::lower) size: CompactString,
    pub(in crate::lower) origin: Origin,
    /// The head of its variable names (`main-db` -> `MAIN_DB`).
    prefix: String,
    /// Its variable names in the spec's order, made once and shared by its bindings.
    pub(in crate::lower) vars: Arc<[CompactString]>,
    /// Its Infisical folder (`/runtime/main-db`) in the environment's slug, shared by its
    /// variables' places.
    pub(in crate::lower) folder: Arc<InfisicalFolder>,
    /// `restore.check` (a postgres resource's), as declared.
    pub(in crate::lower) restore_check: Option<CompactString>,
}

impl Res {
    /// Its variable of this suffix (`URL` -> `MAIN_DB_URL`): one of its variables, cloned (most
    /// are inline), else joined.
    pub(in crate::lower) fn var(&self, suffix: &str) -> CompactString {
        match self.var_index(suffix) {
            Some(i) => self.vars[i].clone(),
            None => cat(&[&self.prefix, "_", suffix]),
        }
    }

    /// Where the variable of this suffix is among its variables: each is `<prefix>_<suffix>`
    /// (made in [`collect`]), so only the suffixes are compared; no name is joined to be looked
    /// for (those joins were a sixth of planning's `cat` calls, fifth pass).
    pub(in crate::lower) fn var_index(&self, suffix: &str) -> Option<usize> {
        let head = self.prefix.len() + 1;
        self.vars.iter().position(|v| v.len() == head + suffix.len() && v.ends_with(suffix))
    }

    /// Where its size is set: its own `size` (declared) or the environment's `shared`.
    pub(in crate::lower) fn size_path(&self, env_name: &str) -> String {
        match self.origin {
            Origin::Declared => format!("resources.{}.size", self.name),
            Origin::Implicit => format!("environments.{env_name}.shared"),
        }
    }
}

/// The resources of a plan, in order, and their positions by name.
pub(in crate::lower) struct Resources {
    list: Vec<Res>,
    /// Hashed, for lookups only; the first resource of a name is the one found.
    positions: IndexMap<CompactString, usize, foldhash::fast::FixedState>,
}

impl Resources {
    /// Every resource, in order.
    pub(in crate::lower) fn iter(&self) -> std::slice::Iter<'_, Res> {
        self.list.iter()
    }

    /// How many there are.
    pub(in crate::lower) fn len(&self) -> usize {
        self.list.len()
    }

    /// The resource at this position (from [`Resources::position`]).
    pub(in crate::lower) fn at(&self, position: usize) -> &Res {
        &self.list[position]
    }

    /// The (first) resource of this name.
    pub(in crate::lower) fn get(&self, name: &str) -> Option<&Res> {
        self.position(name).map(|i| &self.list[i])
    }

    /// The position of the (first) resource of this name.
    pub(in crate::lower) fn position(&self, name: &str) -> Option<usize> {
        self.positions.get(name).copied()
    }

    /// How many stack outputs their kinds declare (`cx.output` in `kinds/`): the plan's
    /// outputs, counted before they are made (room for a stack output per variable was
    /// more than twice that: 1.4 MB at N = 10,000).
    pub(in crate::lower) fn output_count(&self) -> usize {
        (self.list.iter())
            .map(|r| match &r.spec {
                ResourceSpec::Postgres { .. } | ResourceSpec::Cache { .. } | ResourceSpec::Topic { .. } => 1,
                ResourceSpec::Queue { dead_letter, .. } => 2 + usize::from(dead_letter.is_some()),
                ResourceSpec::Bucket { .. } => 2,
            })
            .sum()
    }
}

/// The resources of environment `env_name`: declared, then implicit `shared-<engine>` (engine
/// order) for each engine some member requires.
pub(in crate::lower) fn collect(product: &Product, env_name: &str, env: &Environment) -> Resources {
    let declared = product.root.resources.iter().map(|(name, r)| {
        let check = r.restore.as_ref().and_then(|s| s.check.as_deref()).map(CompactString::from);
        (CompactString::from(name.as_str()), r.spec.clone(), r.size_in(env_name), Origin::Declared, check)
    });
    let implicit = Engine::ALL
        .into_iter()
        .filter(|engine| product.members.iter().any(|m| m.requires.contains(engine)))
        .map(|engine| {
            (
                shared_name(engine),
                ResourceSpec::default_for(engine),
                env.shared_size(engine),
                Origin::Implicit,
                None,
            )
        });
    let slug = infisical_env(&product.root, env_name);
    // Room for exactly all of them: collected from the chain, the list was reserved for the
    // declared ones (the implicit ones' lower bound is 0), then doubled for the first implicit
    // one (seventh pass: 1.8 MB of room at planning's peak, N = 10,000).
    let mut list: Vec<Res> = Vec::with_capacity(declared.len() + implicit.clone().count());
    list.extend(declared.chain(implicit).enumerate().map(
        |(index, (name, spec, size, origin, restore_check))| {
            let prefix = variable_prefix(&name);
            let vars = variable_suffixes(&spec).into_iter().map(|s| cat(&[&prefix, "_", s])).collect();
            let folder = InfisicalFolder::shared(Arc::clone(&slug), folder(product, &name));
            Res { index, name, spec, size: size.into(), origin, prefix, vars, folder, restore_check }
        },
    ));
    // Collected in reverse: a later insert of a name keeps its place and takes the earlier
    // position, so the first of a name is found.
    let positions = list.iter().rev().map(|r| (r.name.clone(), r.index)).collect();
    Resources { list, positions }
}

/// The implicit resource of an engine (`shared-postgres`).
pub(in crate::lower) fn shared_name(engine: Engine) -> CompactString {
    cat(&["shared-", engine.as_str()])
}

/// The Infisical folder of a resource's variables: its path with each `{resource}` replaced
/// by the resource's name (what `Infisical::folder` gives, without building a substring
/// searcher per resource).
fn folder(product: &Product, resource: &str) -> CompactString {
    let path = match &product.root.secrets.infisical {
        Some(i) => i.path.as_str(),
        None => runway_schema::DEFAULT_INFISICAL_PATH,
    };
    fill(path, resource)
}

/// The Infisical environment slug of environment `env_name` (`secrets.infisical`'s, else the
/// environment's name): one text for the plan.
pub(in crate::lower) fn infisical_env(root: &Runway, env_name: &str) -> Arc<str> {
    Arc::from(root.secrets.infisical.as_ref().map_or(env_name, |i| i.environment_slug(env_name)))
}

/// `path` with each `{resource}`, left to right, replaced by `resource` (as `str::replace`).
pub(in crate::lower) fn fill(path: &str, resource: &str) -> CompactString {
    const HOLE: &str = "{resource}";
    let mut out = CompactString::with_capacity(path.len() + resource.len());
    let mut rest = path;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        if rest[at..].starts_with(HOLE) {
            out.push_str(resource);
            rest = &rest[at + HOLE.len()..];
        } else {
            out.push('{');
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fill` gives what `str::replace` gives, holes anywhere, other braces kept.
    #[test]
    fn a_folder_fills_every_hole_as_replace_does() {
        for path in
            ["/runtime/{resource}", "{resource}", "/a/{resource}/b/{resource}", "/{x}/{{resource}}/{res", ""]
        {
            assert_eq!(fill(path, "main-db"), path.replace("{resource}", "main-db").as_str(), "{path}");
        }
    }

    /// A variable is found by its suffix only: `URL` is not `DLQ_URL`.
    #[test]
    fn variables_are_found_by_their_whole_suffix() {
        let spec = ResourceSpec::Topic { fifo: false };
        let vars: Arc<[CompactString]> = ["Q_URL", "Q_ARN", "Q_DLQ_URL"].map(CompactString::from).into();
        let r = Res {
            index: 0,
            name: "q".into(),
            spec,
            size: "small".into(),
            origin: Origin::Declared,
            prefix: "Q".into(),
            vars,
            folder: InfisicalFolder::shared("dev".into(), "/runtime/q"),
            restore_check: None,
        };
        assert_eq!(
            (r.var_index("URL"), r.var_index("DLQ_URL"), r.var_index("ARN")),
            (Some(0), Some(2), Some(1))
        );
        assert_eq!(r.var_index("RL"), None);
        assert_eq!(r.var("DLQ_URL"), "Q_DLQ_URL");
        assert_eq!(r.var("HOST"), "Q_HOST");
    }
}
