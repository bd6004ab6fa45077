//! Reading one offer file (the price list of one service in one region), keeping only the
//! products a caller asks for and their on-demand terms.
//!
//! An offer file is one JSON object: `offerCode`, `version`, `publicationDate`, then
//! `products` (SKU -> family and attributes) and `terms` (`OnDemand` and `Reserved`, each
//! SKU -> term -> price dimensions). The RDS file of a region is about 27 MB; this reader
//! walks it once and keeps the few products `keep` accepts, skipping every other product and
//! every reserved term without building it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

/// One product row: its SKU, family and attributes.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Product {
    /// The SKU.
    #[serde(default)]
    pub sku: String,
    /// `productFamily` (`Database Instance`, `Load Balancer-Application`); may be empty.
    #[serde(default, rename = "productFamily")]
    pub family: String,
    /// Attributes by name (`regionCode`, `usagetype`, `databaseEngine`, ...).
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
}

impl Product {
    /// An attribute's value, or `""` when the product lacks it.
    pub fn attr(&self, name: &str) -> &str {
        self.attributes.get(name).map_or("", String::as_str)
    }
}

/// One on-demand term of a SKU.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Term {
    /// Price dimensions by rate code: one per tier.
    #[serde(rename = "priceDimensions")]
    pub dimensions: BTreeMap<String, Dimension>,
}

/// One price dimension (a tier) of a term.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Dimension {
    /// What AWS says it charges (`$0.016 per RDS db.t4g.micro Single-AZ instance hour ...`).
    #[serde(default)]
    pub description: String,
    /// The unit (`Hrs`, `GB-Mo`, `Requests`).
    #[serde(default)]
    pub unit: String,
    /// Where the tier begins, in units (`"0"`).
    #[serde(default, rename = "beginRange")]
    pub begin: String,
    /// Where it ends (`"Inf"` for the last).
    #[serde(default, rename = "endRange")]
    pub end: String,
    /// Price per unit by currency; `USD` is read, as a decimal string.
    #[serde(rename = "pricePerUnit")]
    pub price: BTreeMap<String, String>,
}

/// What was kept of an offer file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offer {
    /// `offerCode` (`AmazonRDS`).
    pub code: String,
    /// `version` (`20261006224050`).
    pub version: String,
    /// `publicationDate` (`2026-10-06T22:40:50Z`).
    pub published: String,
    /// The products kept, by SKU.
    pub products: BTreeMap<String, Product>,
    /// The on-demand terms of the products kept, by SKU.
    pub on_demand: BTreeMap<String, Vec<Term>>,
}

/// Reads an offer file, keeping the products `keep` accepts and their on-demand terms.
///
/// Errors are serde_json's (with line and column), or a message naming a missing field.
pub fn read(bytes: &[u8], keep: &dyn Fn(&Product) -> bool) -> Result<Offer, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let offer = OfferSeed { keep }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    let missing: Vec<&str> = [
        ("offerCode", offer.code.is_empty()),
        ("version", offer.version.is_empty()),
        ("publicationDate", offer.published.is_empty()),
    ]
    .into_iter()
    .filter_map(|(name, absent)| absent.then_some(name))
    .collect();
    if !missing.is_empty() {
        return Err(format!("the offer file has no {}", missing.join(", ")));
    }
    Ok(offer)
}

struct OfferSeed<'a> {
    keep: &'a dyn Fn(&Product) -> bool,
}

impl<'de> DeserializeSeed<'de> for OfferSeed<'_> {
    type Value = Offer;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Offer, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OfferSeed<'_> {
    type Value = Offer;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AWS Price List offer file (a JSON object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Offer, A::Error> {
        let mut offer = Offer::default();
        let mut products_seen = false;
        // Terms met before products (not the published order) are all kept, then trimmed.
        let mut early_terms = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "offerCode" => offer.code = map.next_value()?,
                "version" => offer.version = map.next_value()?,
                "publicationDate" => offer.published = map.next_value()?,
                "products" => {
                    offer.products = map.next_value_seed(ProductsSeed { keep: self.keep })?;
                    products_seen = true;
                }
                "terms" => {
                    let kept: Option<BTreeSet<String>> =
                        products_seen.then(|| offer.products.keys().cloned().collect());
                    early_terms = kept.is_none();
                    offer.on_demand = map.next_value_seed(TermsSeed { kept: kept.as_ref() })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if early_terms {
            offer.on_demand.retain(|sku, _| offer.products.contains_key(sku));
        }
        Ok(offer)
    }
}

struct ProductsSeed<'a> {
    keep: &'a dyn Fn(&Product) -> bool,
}

impl<'de> DeserializeSeed<'de> for ProductsSeed<'_> {
    type Value = BTreeMap<String, Product>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ProductsSeed<'_> {
    type Value = BTreeMap<String, Product>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`products`: an object of SKU -> product")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some((sku, mut product)) = map.next_entry::<String, Product>()? {
            if product.sku.is_empty() {
                product.sku.clone_from(&sku);
            }
            if (self.keep)(&product) {
                out.insert(sku, product);
            }
        }
        Ok(out)
    }
}

struct TermsSeed<'a> {
    kept: Option<&'a BTreeSet<String>>,
}

impl<'de> DeserializeSeed<'de> for TermsSeed<'_> {
    type Value = BTreeMap<String, Vec<Term>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TermsSeed<'_> {
    type Value = BTreeMap<String, Vec<Term>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`terms`: an object of term type -> SKU -> terms")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(kind) = map.next_key::<String>()? {
            if kind == "OnDemand" {
                out = map.next_value_seed(OnDemandSeed { kept: self.kept })?;
            } else {
                // Reserved (and any other) terms are never read.
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

struct OnDemandSeed<'a> {
    kept: Option<&'a BTreeSet<String>>,
}

impl<'de> DeserializeSeed<'de> for OnDemandSeed<'_> {
    type Value = BTreeMap<String, Vec<Term>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OnDemandSeed<'_> {
    type Value = BTreeMap<String, Vec<Term>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`terms.OnDemand`: an object of SKU -> offer term code -> term")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(sku) = map.next_key::<String>()? {
            if self.kept.is_none_or(|k| k.contains(&sku)) {
                let terms: BTreeMap<String, Term> = map.next_value()?;
                out.insert(sku, terms.into_values().collect());
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{
      "formatVersion" : "v1.0", "disclaimer" : "d", "offerCode" : "AmazonSNS",
      "version" : "20260211000229", "publicationDate" : "2026-02-11T00:02:29Z",
      "products" : {
        "AAA" : { "sku" : "AAA", "productFamily" : "API Request", "attributes" : { "usagetype" : "Requests-Tier1" } },
        "BBB" : { "sku" : "BBB", "productFamily" : "Message Delivery", "attributes" : { "usagetype" : "DeliveryAttempts-SMS" } }
      },
      "terms" : {
        "OnDemand" : {
          "AAA" : { "AAA.JRTCKXETXF" : { "offerTermCode" : "JRTCKXETXF", "sku" : "AAA", "effectiveDate" : "2026-02-01T00:00:00Z", "termAttributes" : { },
            "priceDimensions" : { "AAA.JRTCKXETXF.6YS6EN2CT7" : { "rateCode" : "AAA.JRTCKXETXF.6YS6EN2CT7", "description" : "x", "beginRange" : "0", "endRange" : "Inf", "unit" : "Requests", "pricePerUnit" : { "USD" : "0.0000005000" }, "appliesTo" : [ ] } } } },
          "BBB" : { "BBB.JRTCKXETXF" : { "priceDimensions" : { } } }
        },
        "Reserved" : { "AAA" : { "AAA.X" : { "priceDimensions" : { } } } }
      }
    }"#;

    #[test]
    fn only_kept_products_and_their_on_demand_terms_are_read() {
        let offer = read(TEXT.as_bytes(), &|p| p.family == "API Request").unwrap();
        assert_eq!((offer.code.as_str(), offer.version.as_str()), ("AmazonSNS", "20260211000229"));
        assert_eq!(offer.products.keys().collect::<Vec<_>>(), ["AAA"]);
        assert_eq!(offer.on_demand.keys().collect::<Vec<_>>(), ["AAA"]);
        let dim = offer.on_demand["AAA"][0].dimensions.values().next().unwrap();
        assert_eq!((dim.unit.as_str(), dim.price["USD"].as_str()), ("Requests", "0.0000005000"));
    }

    #[test]
    fn truncated_or_trailing_text_and_missing_fields_are_errors() {
        let cut = &TEXT[..TEXT.len() / 2];
        let err = read(cut.as_bytes(), &|_| true).unwrap_err();
        assert!(err.contains("line"), "{err}");
        let trailing = format!("{TEXT} {{}}");
        assert!(read(trailing.as_bytes(), &|_| true).is_err());
        let err = read(br#"{"products": {}, "terms": {}}"#, &|_| true).unwrap_err();
        assert_eq!(err, "the offer file has no offerCode, version, publicationDate");
    }

    #[test]
    fn terms_before_products_are_trimmed_to_the_kept_products() {
        let text = r#"{"offerCode":"X","version":"1","publicationDate":"2026-01-01T00:00:00Z",
          "terms":{"OnDemand":{"A":{"A.T":{"priceDimensions":{}}},"B":{"B.T":{"priceDimensions":{}}}}},
          "products":{"A":{"productFamily":"f","attributes":{}},"B":{"productFamily":"g","attributes":{}}}}"#;
        let offer = read(text.as_bytes(), &|p| p.family == "f").unwrap();
        assert_eq!(offer.on_demand.keys().collect::<Vec<_>>(), ["A"]);
        assert_eq!(offer.products["A"].sku, "A");
    }
}
