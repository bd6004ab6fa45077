//! The lowering context of one environment: what every kind's lowering reads (product,
//! environment, catalogue, naming) and the lists it appends to (items, outputs, diagnostics,
//! secrets layout).

use std::sync::Arc;

use compact_str::CompactString;
use cost::Catalogue;
use runway_schema::{Code, Diagnostic, Environment, Money};

use super::cat;
use super::reach::Network;
use super::resources::Res;
use super::secret_layout::Layout;
use super::task_fingerprint::Fingerprints;
use crate::naming::{fit, limit};
use crate::plan::{ItemKind, ItemSpec, ManagedBy, PlannedItem, PlannedOutput, Pricing};
use crate::pricing::{Priceable, Prices};

/// Everything the lowering of one environment reads and appends to.
pub(in crate::lower) struct Cx<'a> {
    /// The product name.
    pub(in crate::lower) product: &'a str,
    /// `<product>-<env>-`, joined once: the head of [`Cx::base`]'s stems.
    base_head: CompactString,
    /// The environment's name.
    pub(in crate::lower) env_name: &'a str,
    /// The environment.
    pub(in crate::lower) env: &'a Environment,
    /// Sizes and prices.
    pub(in crate::lower) catalogue: &'a Catalogue,
    /// Every item so far, in plan order.
    pub(in crate::lower) items: Vec<PlannedItem>,
    /// What to price for each item of `items` that has a price of its own, by its position
    /// there (a third of the items: the others are included in another's price).
    pub(in crate::lower) prices: Prices,
    /// Planning diagnostics so far (cost diagnostics follow them).
    pub(in crate::lower) diagnostics: Vec<Diagnostic>,
    /// The stack outputs so far.
    pub(in crate::lower) outputs: Vec<PlannedOutput>,
    /// Generated credentials, connection variables and SSM parameters so far.
    pub(in crate::lower) secrets: Layout,
    /// Who reaches what: the security groups' rules come from it.
    pub(in crate::lower) network: Network,
    /// The amounts of use the estimate counts so far (`cost.usage`).
    pub(in crate::lower) usage: Vec<crate::plan::UsageAssumption>,
    /// The one-off tasks the resources need so far (the databases' bootstraps).
    pub(in crate::lower) tasks: Vec<crate::plan::OneOffTask>,
    /// The image of the databases' bootstraps (`bootstrap.image`, else
    /// [`BOOTSTRAP_IMAGE`](crate::plan::BOOTSTRAP_IMAGE)): one text for every bootstrap's task
    /// definition and record.
    pub(in crate::lower) bootstrap_image: Arc<str>,
    /// A preview's: how its postgres resources use the `from` environment's instances
    /// (`None` for a declared environment).
    pub(in crate::lower) preview: Option<crate::lower::PreviewDatabases<'a>>,
    /// Is this the environment the product's previews are `from` (its proxies' roles read the
    /// previews' login secrets too)?
    pub(in crate::lower) previews_from: bool,
    /// The NAT gateways of the environment's VPC item, once it is planned (`vpc.rs`): what a
    /// bootstrap's image route reads (sixth pass: found by a scan of the items per bootstrap).
    pub(in crate::lower) vpc_nat: Option<u32>,
    /// The fingerprints a [`crate::Planner`] took in the environments it planned before
    /// (`None`: one environment alone, nothing to share).
    pub(in crate::lower) fingerprints: Option<&'a mut Fingerprints>,
    /// The size names of the items so far, each one text the items of its size share
    /// ([`Cx::size_text`]).
    sizes: Vec<Arc<str>>,
}

impl<'a> Cx<'a> {
    /// A context with room for `expected_items` items and `outputs` stack outputs (what the
    /// resources' kinds declare).
    pub(in crate::lower) fn new(
        product: &'a str,
        env_name: &'a str,
        env: &'a Environment,
        catalogue: &'a Catalogue,
        (expected_items, outputs): (usize, usize),
        (secrets, network): (Layout, Network),
    ) -> Self {
        Cx {
            product,
            base_head: cat(&[product, "-", env_name, "-"]),
            env_name,
            env,
            catalogue,
            items: Vec::with_capacity(expected_items),
            prices: Prices::default(),
            diagnostics: Vec::new(),
            outputs: Vec::with_capacity(outputs),
            secrets,
            network,
            usage: Vec::new(),
            tasks: Vec::new(),
            bootstrap_image: Arc::from(
                env.bootstrap.image.as_ref().map_or(crate::plan::BOOTSTRAP_IMAGE, |i| i.as_str()),
            ),
            preview: None,
            previews_from: false,
            vpc_nat: None,
            fingerprints: None,
            sizes: Vec::new(),
        }
    }

    /// The database consumers of postgres resource `resource` connect to: `main_db`, or a
    /// preview's own `main_db_pr_7`.
    pub(in crate::lower) fn database(&self, resource: &str) -> CompactString {
        let mut name = CompactString::from(crate::lower::database_name(resource));
        if let Some(p) = self.preview {
            name.push_str(p.suffix);
        }
        name
    }

    /// The [`fingerprint`](super::task_fingerprint::fingerprint) of `words`, taken once per
    /// [`crate::Planner`].
    pub(in crate::lower) fn fingerprint(&mut self, words: Vec<CompactString>) -> CompactString {
        match self.fingerprints.as_deref_mut() {
            Some(known) => known.of(words),
            None => super::task_fingerprint::fingerprint(&words),
        }
    }

    /// `<product>-<env>-<name>`: the stem of the physical names of what `name` owns.
    pub(in crate::lower) fn base(&self, name: &str) -> CompactString {
        cat(&[&self.base_head, name])
    }

    /// `full`, cut to the name limit of `kind` (see [`crate::naming`]).
    pub(in crate::lower) fn named(&self, kind: ItemKind, full: CompactString) -> CompactString {
        match limit(kind) {
            Some(l) if full.len() > l => fit(&full, l),
            _ => full,
        }
    }

    /// Appends an item; returns its logical id. An item with no price of its own is
    /// included in another's, at zero, with the reason as its note.
    pub(in crate::lower) fn push(&mut self, item: NewItem) -> CompactString {
        let id = item.id.clone();
        self.add(item);
        id
    }

    /// Appends an item whose id the caller does not need ([`Cx::push`] without a copy of the
    /// id: a heap allocation and its free for an id longer than 24 bytes).
    pub(in crate::lower) fn add(&mut self, item: NewItem) {
        let NewItem { id, physical_name, owner, size, managed_by, depends_on, spec, price, note } = item;
        let kind = spec.kind();
        let included = price.is_none();
        let size = size.map(|size| self.size_text(&size));
        if let Some(price) = price {
            self.prices.push(self.items.len(), price);
        }
        self.items.push(PlannedItem {
            id,
            physical_name,
            owner,
            managed_by,
            size,
            monthly: included.then_some(Money::ZERO),
            ceiling: included.then_some(Money::ZERO),
            pricing: if included {
                Pricing::Included { note: CompactString::const_new(note.unwrap_or(kind.included_note())) }
            } else {
                Pricing::Priced
            },
            depends_on: depends_on.into_boxed_slice(),
            spec,
        });
    }

    /// The text of size `size` for an item: a plan's items have a few sizes (`small`,
    /// `medium`), each made once and shared (`Arc`, 16 bytes an item, not 24).
    fn size_text(&mut self, size: &str) -> Arc<str> {
        if let Some(known) = self.sizes.iter().find(|known| ***known == *size) {
            return Arc::clone(known);
        }
        let text: Arc<str> = Arc::from(size);
        self.sizes.push(Arc::clone(&text));
        text
    }

    /// Records a stack output of `item` and the connection variable `var` it fills.
    pub(in crate::lower) fn output(&mut self, r: &Res, item: &str, attribute: &str, var: CompactString) {
        self.outputs.push(PlannedOutput {
            name: var.clone(),
            item: item.into(),
            attribute: attribute.into(),
        });
        self.secrets.output(r, var);
    }

    /// Reports that the catalogue has no `what` size `size`, at `path` of the file.
    pub(in crate::lower) fn unknown_size(&mut self, path: String, what: &str, size: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::UnknownSize,
                self.env.at.clone(),
                path,
                format!("the catalogue has no {what} size `{size}`"),
            )
            .with_help("use a size the catalogue lists (`runway catalogue`), or extend the catalogue"),
        );
    }

    /// Reports that the catalogue has no `what` size of the resource's size, where the size is
    /// set: the resource's `size` (declared) or the environment's `shared` (implicit).
    pub(in crate::lower) fn unknown_resource_size(&mut self, r: &Res, what: &str) {
        let path = r.size_path(self.env_name);
        self.unknown_size(path, what, &r.size);
    }
}

/// An item as other items refer to it: its logical id and its physical name.
pub(in crate::lower) struct Named {
    pub(in crate::lower) id: CompactString,
    pub(in crate::lower) name: CompactString,
}

/// An item to append: [`NewItem::new`] with what every item has, then what only some have.
pub(in crate::lower) struct NewItem {
    id: CompactString,
    physical_name: CompactString,
    owner: Option<CompactString>,
    size: Option<CompactString>,
    managed_by: ManagedBy,
    depends_on: Vec<CompactString>,
    spec: ItemSpec,
    price: Option<Priceable>,
    /// Why it has no price of its own, when its kind's usual reason is not it.
    note: Option<&'static str>,
}

impl NewItem {
    /// An item managed by Pulumi, of no size, depending on nothing, priced in another's price.
    #[inline]
    pub(in crate::lower) fn new(
        id: CompactString,
        physical_name: CompactString,
        owner: Option<&str>,
        spec: ItemSpec,
    ) -> Self {
        NewItem {
            id,
            physical_name,
            owner: owner.map(CompactString::from),
            size: None,
            managed_by: ManagedBy::Pulumi,
            depends_on: Vec::new(),
            spec,
            price: None,
            note: None,
        }
    }

    /// Of this size of the catalogue.
    #[inline]
    pub(in crate::lower) fn size(mut self, size: &str) -> Self {
        self.size = Some(size.into());
        self
    }

    /// Depending on these items (logical ids).
    #[inline]
    pub(in crate::lower) fn depends_on(mut self, ids: Vec<CompactString>) -> Self {
        self.depends_on = ids;
        self
    }

    /// Priced on its own.
    #[inline]
    pub(in crate::lower) fn priced(mut self, price: Priceable) -> Self {
        self.price = Some(price);
        self
    }

    /// Of no price of its own, for this reason rather than its kind's usual one.
    #[inline]
    pub(in crate::lower) fn included(mut self, note: &'static str) -> Self {
        self.note = Some(note);
        self
    }

    /// Created by another tool than Pulumi.
    #[inline]
    pub(in crate::lower) fn managed_by(mut self, managed_by: ManagedBy) -> Self {
        self.managed_by = managed_by;
        self
    }
}
