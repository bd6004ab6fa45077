//! Reads the AWS Price List bulk offer files and produces the prices of a runway catalogue.
//!
//! AWS publishes every on-demand price per service and region as public JSON files that need
//! no account (`<endpoint>/offers/v1.0/aws/<offer>/current/region_index.json`, then one file
//! per region). [`import`] reads, for every price key it is given, the one on-demand row that
//! prices it (the rules, one module per offer, are in `rules/`), and returns a
//! [`cost::Catalogue`] holding those prices, each with its offer, version, SKU and URL as the
//! source and the offer's publication date as `seen`. A key no row matches is unpriced,
//! naming the offer and version searched.
//!
//! What it does not do: it decides nothing about plans, writes no file and reads no
//! terminal: the CLI (`runway catalogue import`) does those. It reads one offer file at a
//! time and keeps only the rows its rules want, so the 27 MB RDS file is never held twice.

use cost::{Catalogue, PriceEntry, PriceStatus, PriceTable};
use indexmap::IndexMap;
use serde::Deserialize;

mod error;
mod fetch;
pub mod offer;
pub mod region;
mod rules;

pub use error::Error;
pub use fetch::MAX_FILE_BYTES;
pub use region::REGIONS;
pub use rules::OFFERS;

/// The AWS Price List bulk API's endpoint.
pub const DEFAULT_ENDPOINT: &str = "https://pricing.us-east-1.amazonaws.com";

/// How far a download is, for a progress line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress<'a> {
    /// The offer (`AmazonRDS`).
    pub offer: &'a str,
    /// The region of an offer file; `None` for the offer's region index.
    pub region: Option<&'a str>,
    /// Bytes received so far.
    pub received: u64,
    /// The file's size, when the server says it.
    pub total: Option<u64>,
    /// The file is complete.
    pub done: bool,
}

/// One offer file read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfferRead {
    /// The offer (`AmazonRDS`).
    pub offer: String,
    /// The region.
    pub region: String,
    /// The offer's version, or `None` when its region index lists no file for the region.
    pub version: Option<String>,
    /// The file's URL.
    pub url: Option<String>,
}

/// What an import produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// Prices only (no sizes), per region in the order asked, per key in the order given.
    pub catalogue: Catalogue,
    /// The offer files read, in order.
    pub offers: Vec<OfferRead>,
}

#[derive(Deserialize)]
struct RegionIndex {
    #[serde(default, rename = "publicationDate")]
    published: String,
    regions: std::collections::BTreeMap<String, RegionFile>,
}

#[derive(Deserialize)]
struct RegionFile {
    #[serde(rename = "currentVersionUrl")]
    url: String,
}

/// `url` made absolute against the endpoint (the index files give paths).
fn absolute(endpoint: &str, url: &str) -> String {
    if url.starts_with("https://") || url.starts_with("http://") {
        url.to_owned()
    } else {
        format!("{}/{}", endpoint.trim_end_matches('/'), url.trim_start_matches('/'))
    }
}

/// The usage-type prefix of every region asked for, or the first unknown one.
fn prefixes(regions: &[String]) -> Result<Vec<(&str, &'static str)>, Error> {
    regions
        .iter()
        .map(|r| {
            region::usage_prefix(r).map(|p| (r.as_str(), p)).ok_or_else(|| Error::UnknownRegion {
                region: r.clone(),
                known: REGIONS.iter().map(|(name, _)| *name).collect(),
            })
        })
        .collect()
}

/// Imports the prices of `keys` (as [`Catalogue::price_keys`] lists them) in `regions` from
/// the price list at `endpoint` ([`DEFAULT_ENDPOINT`]). `progress` hears of every chunk.
///
/// Errors: an unknown region or an endpoint that is not an http(s) URL (before any request),
/// an unreachable endpoint, an error status or a file that is not a price-list file. Keys no
/// rule reads (usage-based ones, keys of a newer catalogue) are left out of the result.
pub async fn import(
    endpoint: &str,
    regions: &[String],
    keys: &[String],
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Imported, Error> {
    if !(endpoint.starts_with("https://") || endpoint.starts_with("http://")) {
        return Err(Error::BadEndpoint { endpoint: endpoint.to_owned() });
    }
    let prefixes = prefixes(regions)?;
    let lookups: Vec<(&String, rules::Lookup)> = keys.iter().map(|k| (k, rules::lookup(k))).collect();
    let client = fetch::client()?;
    // (region, key) -> entry, filled offer by offer.
    let mut found: IndexMap<(String, String), PriceEntry> = IndexMap::new();
    let mut offers = Vec::new();
    for &offer_code in OFFERS {
        let offer_rules: Vec<&rules::Rule> = lookups
            .iter()
            .filter_map(|(_, l)| match l {
                rules::Lookup::Rule(r) if r.offer == offer_code => Some(r),
                _ => None,
            })
            .collect();
        if offer_rules.is_empty() {
            continue;
        }
        let index_url =
            absolute(endpoint, &format!("/offers/v1.0/aws/{offer_code}/current/region_index.json"));
        let bytes = fetch::get(&client, &index_url, offer_code, None, progress).await?;
        let index: RegionIndex = serde_json::from_slice(&bytes)
            .map_err(|e| Error::Malformed { url: index_url.clone(), message: e.to_string() })?;
        drop(bytes);
        // A global price (Route 53) may be read from whichever file the index lists.
        let global = offer_rules.iter().all(|r| r.global);
        for &(region, prefix) in &prefixes {
            let listed =
                index.regions.get(region).or_else(|| index.regions.values().next().filter(|_| global));
            let Some(file) = listed else {
                let why = format!(
                    "AWS Price List offer {offer_code}: its region index ({index_url}, published {}) lists no file for {region}",
                    index.published
                );
                for rule in &offer_rules {
                    let entry = PriceEntry {
                        unit: rule.unit.to_owned(),
                        status: PriceStatus::Unpriced { unpriced: why.clone() },
                    };
                    found.insert((region.to_owned(), rule.key.clone()), entry);
                }
                offers.push(OfferRead {
                    offer: offer_code.to_owned(),
                    region: region.to_owned(),
                    version: None,
                    url: None,
                });
                continue;
            };
            let url = absolute(endpoint, &file.url);
            let bytes = fetch::get(&client, &url, offer_code, Some(region), progress).await?;
            let keep = |p: &offer::Product| offer_rules.iter().any(|r| rules::wants(r, p, region, prefix));
            let read = offer::read(&bytes, &keep)
                .map_err(|message| Error::Malformed { url: url.clone(), message })?;
            drop(bytes);
            if read.code != offer_code {
                return Err(Error::Malformed {
                    url,
                    message: format!("its offerCode is `{}`, expected `{offer_code}`", read.code),
                });
            }
            if cost::day_number(read.published.get(..10).unwrap_or_default()).is_none() {
                return Err(Error::Malformed {
                    url,
                    message: format!("its publicationDate `{}` is not a date", read.published),
                });
            }
            for rule in &offer_rules {
                found.insert(
                    (region.to_owned(), rule.key.clone()),
                    rules::resolve(rule, &read, region, prefix, &url),
                );
            }
            offers.push(OfferRead {
                offer: offer_code.to_owned(),
                region: region.to_owned(),
                version: Some(read.version.clone()),
                url: Some(url),
            });
        }
    }
    let mut tables: IndexMap<String, PriceTable> = IndexMap::new();
    for &(region, _) in &prefixes {
        let mut table = PriceTable::new();
        for (key, lookup) in &lookups {
            let entry = match lookup {
                rules::Lookup::Rule(_) => found.swap_remove(&(region.to_owned(), (*key).clone())),
                rules::Lookup::NotModelled { unit, reason } => Some(PriceEntry {
                    unit: (*unit).to_owned(),
                    status: PriceStatus::Unpriced { unpriced: (*reason).to_owned() },
                }),
                rules::Lookup::Unknown => None,
            };
            if let Some(entry) = entry {
                table.insert((*key).clone(), entry);
            }
        }
        tables.insert(region.to_owned(), table);
    }
    Ok(Imported { catalogue: Catalogue::with_prices(tables), offers })
}
