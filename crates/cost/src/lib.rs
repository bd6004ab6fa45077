//! The priced size catalogue: what each kind and size declares and costs a month, per region.
//!
//! The catalogue is data (`catalogue.yaml` beside this crate's `Cargo.toml`, embedded at build
//! time). A user's file in the same format replaces or extends it: [`Catalogue::parse`] reads
//! one and [`Catalogue::extended_with`] lays it over another. [`Catalogue::price`] turns a
//! planned [`Item`] into [`Line`]s of checkable arithmetic, or says why it cannot
//! ([`Priced::Unpriced`]): a missing price is never counted as $0.
//!
//! What this crate does not do: it performs no I/O (no file, network, environment or clock),
//! it fetches no live prices, and it never rounds a sum; [`Money`] rounds only for display.
// A match over a kind names every kind, so a new kind is a compile error wherever it needs a
// decision; a projection of one kind is a `let ... else` (ARCHITECTURE.md, "Adding a kind").
#![warn(clippy::wildcard_enum_match_arm)]

use indexmap::IndexMap;
pub use runway_schema::Money;
use runway_schema::{Diagnostic, PostgresEngine};
use serde::Serialize;

mod age;
mod file;
mod item;
mod price;
mod render;
mod setting;
mod sizes;

pub use age::{STALE_AFTER_DAYS, StalePrice, date_of_day, day_number};
pub use file::MAX_CATALOGUE_BYTES;
pub use item::Item;
pub use price::{Line, LineText, Priced, Rate, proxy_vcpus, stored_gb_months};
pub use sizes::{CacheSize, PostgresSize, TaskSize};
#[cfg(feature = "proptest1")]
pub mod strategies;

/// Hours in a month, for every hourly price.
pub const HOURS_PER_MONTH: u32 = 730;

/// The default catalogue's text, as embedded in the binary.
pub const BUILTIN_TEXT: &str = include_str!("../catalogue.yaml");

/// Name given to the built-in catalogue in diagnostics.
pub const BUILTIN_FILE: &str = "<builtin catalogue.yaml>";

/// The catalogue: sizes of every kind and the prices per region.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalogue {
    pub(crate) sizes: Sizes,
    pub(crate) regions: IndexMap<String, PriceTable>,
}

/// Every size of every kind, in catalogue order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Sizes {
    pub(crate) postgres_rds: IndexMap<String, PostgresSize>,
    pub(crate) postgres_aurora: IndexMap<String, PostgresSize>,
    pub(crate) cache: IndexMap<String, CacheSize>,
    pub(crate) messaging: IndexMap<String, u64>,
    pub(crate) bucket: IndexMap<String, u64>,
    pub(crate) workload: IndexMap<String, TaskSize>,
}

/// One region's prices, keyed by price key (`rds-instance/db.t4g.micro`, `alb-hour`, ...).
pub type PriceTable = IndexMap<String, PriceEntry>;

/// One price of a region: a figure with its unit, source and date, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceEntry {
    /// The unit one price is for (`hour`, `GB-month`, `million requests`).
    pub unit: String,
    /// The figure, or why there is none.
    #[serde(flatten)]
    pub status: PriceStatus,
}

/// A price, or the reason it is missing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", untagged)]
pub enum PriceStatus {
    /// A figure seen in a public source.
    Priced {
        /// US dollars per unit, exact.
        #[serde(serialize_with = "exact_money")]
        price: Money,
        /// Where the figure was seen (URL or document).
        source: String,
        /// When it was seen (`YYYY-MM-DD`).
        seen: String,
    },
    /// No figure: items needing it are reported as unpriced.
    Unpriced {
        /// Why (`no public source found for eu-west-1`).
        unpriced: String,
    },
}

/// Serializes money exactly (`"0.0128"`), not rounded to cents: unit prices need every digit.
pub(crate) fn exact_money<S: serde::Serializer>(m: &Money, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&m.0.normalize())
}

/// [`exact_money`] for a price that may be missing (`null`).
pub(crate) fn exact_money_opt<S: serde::Serializer>(m: &Option<Money>, s: S) -> Result<S::Ok, S::Error> {
    match m {
        Some(m) => exact_money(m, s),
        None => s.serialize_none(),
    }
}

impl Catalogue {
    /// The default catalogue embedded in the binary.
    pub fn builtin() -> Catalogue {
        // The embedded file is checked by the `builtin_catalogue_parses` test; a failure here
        // is a build defect, not user input.
        Catalogue::parse(BUILTIN_FILE, BUILTIN_TEXT)
            .expect("the embedded catalogue.yaml parses (checked by the builtin_catalogue_parses test)")
    }

    /// Parses a catalogue file; errors are diagnostics with line and column.
    ///
    /// Every section is optional, so a user file may hold only what it adds or overrides.
    pub fn parse(file: &str, text: &str) -> Result<Catalogue, Vec<Diagnostic>> {
        file::parse(file, text)
    }

    /// A catalogue of prices only (no sizes), as an importer produces: laid over another with
    /// [`Catalogue::extended_with`], it adds or replaces those regions' prices.
    pub fn with_prices(regions: IndexMap<String, PriceTable>) -> Catalogue {
        Catalogue { sizes: Sizes::default(), regions }
    }

    /// The catalogue in its YAML file format; [`Catalogue::parse`] reads it back unchanged.
    pub fn to_yaml(&self) -> String {
        file::to_yaml(self)
    }

    /// This catalogue with `other` laid over it: new sizes and regions added, prices overridden.
    ///
    /// A size named in both is replaced whole by `other`'s; a price key named in both regions
    /// is replaced by `other`'s. Order: this catalogue's entries first, then `other`'s new ones.
    #[must_use]
    pub fn extended_with(&self, other: &Catalogue) -> Catalogue {
        fn lay<V: Clone>(base: &IndexMap<String, V>, over: &IndexMap<String, V>) -> IndexMap<String, V> {
            let mut out = base.clone();
            for (k, v) in over {
                out.insert(k.clone(), v.clone());
            }
            out
        }
        let s = &self.sizes;
        let o = &other.sizes;
        let sizes = Sizes {
            postgres_rds: lay(&s.postgres_rds, &o.postgres_rds),
            postgres_aurora: lay(&s.postgres_aurora, &o.postgres_aurora),
            cache: lay(&s.cache, &o.cache),
            messaging: lay(&s.messaging, &o.messaging),
            bucket: lay(&s.bucket, &o.bucket),
            workload: lay(&s.workload, &o.workload),
        };
        let mut regions = self.regions.clone();
        for (name, table) in &other.regions {
            let merged = match regions.get(name) {
                Some(base) => lay(base, table),
                None => table.clone(),
            };
            regions.insert(name.clone(), merged);
        }
        Catalogue { sizes, regions }
    }

    /// Every size name of any kind (for `unknown-size` checks), in catalogue order.
    pub fn size_names(&self) -> Vec<String> {
        // Every section named: a new one is a compile error here.
        let Sizes { postgres_rds, postgres_aurora, cache, messaging, bucket, workload } = &self.sizes;
        let mut names: Vec<String> = Vec::new();
        let all = postgres_rds
            .keys()
            .chain(postgres_aurora.keys())
            .chain(cache.keys())
            .chain(messaging.keys())
            .chain(bucket.keys())
            .chain(workload.keys());
        for name in all {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// Regions with a price table.
    pub fn regions(&self) -> Vec<String> {
        self.regions.keys().cloned().collect()
    }

    /// A region's price table, in file order.
    pub fn price_table(&self, region: &str) -> Option<&PriceTable> {
        self.regions.get(region)
    }

    /// What a postgres size declares; `None` for a size the catalogue lacks.
    pub fn postgres(&self, engine: PostgresEngine, size: &str) -> Option<PostgresSize> {
        match engine {
            PostgresEngine::Rds => self.sizes.postgres_rds.get(size).cloned(),
            PostgresEngine::Aurora => self.sizes.postgres_aurora.get(size).cloned(),
        }
    }

    /// What a cache size declares.
    pub fn cache(&self, size: &str) -> Option<CacheSize> {
        self.sizes.cache.get(size).cloned()
    }

    /// What a workload size declares.
    pub fn task(&self, size: &str) -> Option<TaskSize> {
        self.sizes.workload.get(size).cloned()
    }

    /// Monthly requests a queue or topic size assumes.
    pub fn requests(&self, size: &str) -> Option<u64> {
        self.sizes.messaging.get(size).copied()
    }

    /// GB a bucket size assumes.
    pub fn bucket_gb(&self, size: &str) -> Option<u64> {
        self.sizes.bucket.get(size).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalogue_parses() {
        let cat = Catalogue::parse(BUILTIN_FILE, BUILTIN_TEXT).expect("builtin parses");
        assert_eq!(cat.regions(), ["us-east-1", "eu-central-1", "eu-west-1"]);
        assert_eq!(cat.size_names(), ["small", "medium", "large"]);
        // Every price key the sizes need exists in every region, priced or with a reason.
        for region in cat.regions() {
            let table = cat.price_table(&region).expect("table");
            let us = cat.price_table("us-east-1").expect("us table");
            assert_eq!(table.keys().collect::<Vec<_>>(), us.keys().collect::<Vec<_>>(), "{region}");
        }
    }

    /// Every price names where a reader can check it: a URL (a repository file is cited by its
    /// GitHub URL), never an id only a search index understands.
    #[test]
    fn builtin_sources_are_urls() {
        let cat = Catalogue::parse(BUILTIN_FILE, BUILTIN_TEXT).expect("builtin parses");
        for region in cat.regions() {
            for (key, entry) in cat.price_table(&region).expect("table") {
                if let PriceStatus::Priced { source, .. } = &entry.status {
                    assert!(source.starts_with("https://"), "{region} {key}: source is not a URL: {source}");
                    assert!(!source.contains("index file id"), "{region} {key}: {source}");
                }
            }
        }
    }

    #[test]
    fn default_sizes_follow_the_spec() {
        let cat = Catalogue::builtin();
        let t = cat.task("medium").expect("medium");
        assert_eq!((t.cpu, t.memory_mib), (1024, 2048));
        let p = cat.postgres(PostgresEngine::Rds, "medium").expect("medium");
        assert_eq!((p.instance_class.as_str(), p.storage_gb, p.multi_az), ("db.t4g.medium", 100, true));
        let a = cat.postgres(PostgresEngine::Aurora, "large").expect("large");
        assert_eq!((a.instance_class.as_str(), a.instances), ("db.r7g.xlarge", 2));
        assert_eq!(
            cat.cache("large").map(|c| (c.node_type, c.nodes)),
            Some(("cache.m7g.large".to_owned(), 2))
        );
        assert_eq!(cat.requests("medium"), Some(10_000_000));
        assert_eq!(cat.bucket_gb("large"), Some(1024));
        assert_eq!(cat.task("xlarge"), None);
    }
}
