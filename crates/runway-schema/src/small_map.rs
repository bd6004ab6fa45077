//! [`SmallMap`]: the ordered map of the few entries a workload or resource writes under one key
//! (`size`, `scale`, `env`, `uses` modes, `schedules`), kept as one boxed slice.
//!
//! An `IndexMap` is 72 bytes inline whether it holds anything or not, and two allocations (its
//! entries and its hash table) when it does; a workload had eight of them and a product of
//! 10,000 declarations thousands (docs/benchmarks.md, "The product and `check`, sixth pass").
//! A [`SmallMap`] is 16 bytes, allocates nothing when empty and once when not, and finds a key
//! by a scan: these maps hold a handful of entries (one per environment, variable or used
//! resource), for which a scan is as fast as a hash.

use std::fmt;

use serde::{Serialize, Serializer, ser::SerializeMap};

/// An ordered map from names to values, in insertion order, for few entries: lookups scan.
/// It answers what `IndexMap` answered to its readers (`get`, `iter`, `keys`, indexing by
/// name, ...), serializes as a map in its order, and compares as a map (order aside), as
/// `IndexMap` did.
#[derive(Clone)]
pub struct SmallMap<V> {
    entries: Box<[(String, V)]>,
}

impl<V> SmallMap<V> {
    /// An empty map (no allocation).
    pub fn new() -> Self {
        Self { entries: Box::new([]) }
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Does it hold none?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The position of `key`, if present.
    pub fn get_index_of(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The stored key and the value of `key`, if present.
    pub fn get_key_value(&self, key: &str) -> Option<(&String, &V)> {
        self.entries.iter().find(|(k, _)| k == key).map(|(k, v)| (k, v))
    }

    /// The value of `key`, mutable, if present.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Is `key` present?
    pub fn contains_key(&self, key: &str) -> bool {
        self.get_index_of(key).is_some()
    }

    /// The entry at position `index`, if any.
    pub fn get_index(&self, index: usize) -> Option<(&String, &V)> {
        self.entries.get(index).map(|(k, v)| (k, v))
    }

    /// The first entry, if any.
    pub fn first(&self) -> Option<(&String, &V)> {
        self.get_index(0)
    }

    /// The last entry, if any.
    pub fn last(&self) -> Option<(&String, &V)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    /// Sets `key` to `value`: a present key keeps its position and its old value is returned
    /// (as `IndexMap::insert`); a new one goes last. Each new key reallocates: for building
    /// maps of a few entries, else collect.
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        if let Some(old) = self.get_mut(&key) {
            return Some(std::mem::replace(old, value));
        }
        let mut entries = std::mem::take(&mut self.entries).into_vec();
        entries.push((key, value));
        self.entries = entries.into_boxed_slice();
        None
    }

    /// Keeps the entries `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut V) -> bool) {
        let mut entries = std::mem::take(&mut self.entries).into_vec();
        entries.retain_mut(|(k, v)| keep(k, v));
        self.entries = entries.into_boxed_slice();
    }

    /// Its entries in order.
    pub fn iter(&self) -> Iter<'_, V> {
        Iter(self.entries.iter())
    }

    /// Its entries in order, values mutable.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&String, &mut V)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// Its keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Its values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Its values in order, mutable.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

/// The entries of a [`SmallMap`] in order, as `(&key, &value)`.
#[derive(Clone, Debug)]
pub struct Iter<'a, V>(std::slice::Iter<'a, (String, V)>);

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (&'a String, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<V> DoubleEndedIterator for Iter<'_, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl<V> ExactSizeIterator for Iter<'_, V> {}

impl<'a, V> IntoIterator for &'a SmallMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = Iter<'a, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<V> IntoIterator for SmallMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_vec().into_iter()
    }
}

impl<V> FromIterator<(String, V)> for SmallMap<V> {
    /// In order; a repeated key keeps its first position and takes its last value (as
    /// `IndexMap` collects).
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut entries: Vec<(String, V)> = Vec::new();
        for (key, value) in iter {
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some((_, old)) => *old = value,
                None => entries.push((key, value)),
            }
        }
        Self { entries: entries.into_boxed_slice() }
    }
}

impl<V> From<Vec<(String, V)>> for SmallMap<V> {
    /// The entries in order, a repeated key kept at its first place with its last value (as
    /// collecting does). A vector whose capacity is its length becomes the map without a copy:
    /// the way to build one of several entries (each [`SmallMap::insert`] reallocates).
    fn from(mut entries: Vec<(String, V)>) -> Self {
        let unique =
            entries.iter().enumerate().all(|(i, (k, _))| entries[..i].iter().all(|(seen, _)| seen != k));
        if !unique {
            return entries.into_iter().collect();
        }
        entries.shrink_to_fit();
        Self { entries: entries.into_boxed_slice() }
    }
}

impl<V> From<indexmap::IndexMap<String, V>> for SmallMap<V> {
    /// The same entries in the same order (an `IndexMap`'s keys are already unique).
    fn from(map: indexmap::IndexMap<String, V>) -> Self {
        Self { entries: map.into_iter().collect::<Vec<_>>().into_boxed_slice() }
    }
}

impl<V> std::ops::Index<&str> for SmallMap<V> {
    type Output = V;

    /// The value of `key`; panics when it is absent, as `IndexMap`'s indexing does.
    fn index(&self, key: &str) -> &V {
        match self.get(key) {
            Some(v) => v,
            None => panic!("SmallMap: key `{key}` not found"),
        }
    }
}

impl<V: PartialEq> PartialEq for SmallMap<V> {
    /// Equal when both hold the same keys with equal values, in any order (as `IndexMap`).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl<V: Eq> Eq for SmallMap<V> {}

impl<V: fmt::Debug> fmt::Debug for SmallMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V: Serialize> Serialize for SmallMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use indexmap::IndexMap;

    use super::SmallMap;

    fn pairs(p: &[(&str, u32)]) -> Vec<(String, u32)> {
        p.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    }

    #[test]
    fn it_answers_as_the_index_map_it_replaces() {
        let written = pairs(&[("dev", 1), ("staging", 2), ("dev", 3), ("production", 4)]);
        let small: SmallMap<u32> = written.iter().cloned().collect();
        let index: IndexMap<String, u32> = written.into_iter().collect();
        assert_eq!(small.len(), index.len());
        assert!(small.iter().eq(index.iter()));
        assert_eq!(small.get("dev"), Some(&3));
        assert_eq!(small.get("qa"), None);
        assert_eq!(small["production"], 4);
        assert_eq!(small.get_index_of("staging"), index.get_index_of("staging"));
        assert_eq!(serde_json::to_string(&small).ok(), serde_json::to_string(&index).ok());
        assert_eq!(format!("{small:?}"), format!("{index:?}"));
        assert_eq!(format!("{small:#?}"), format!("{index:#?}"));
    }

    #[test]
    fn from_a_vector_as_collected() {
        for written in
            [pairs(&[]), pairs(&[("dev", 1), ("staging", 2)]), pairs(&[("a", 1), ("b", 2), ("a", 3)])]
        {
            let from: SmallMap<u32> = written.clone().into();
            let collected: SmallMap<u32> = written.into_iter().collect();
            assert!(from.iter().eq(collected.iter()));
        }
    }

    #[test]
    fn insert_keeps_a_keys_place_and_equality_ignores_order() {
        let mut a = SmallMap::new();
        assert_eq!(a.insert("b".to_owned(), 1), None);
        assert_eq!(a.insert("a".to_owned(), 2), None);
        assert_eq!(a.insert("b".to_owned(), 3), Some(1));
        assert_eq!(a.keys().collect::<Vec<_>>(), ["b", "a"]);
        let b: SmallMap<u32> = pairs(&[("a", 2), ("b", 3)]).into_iter().collect();
        assert_eq!(a, b);
        let c: SmallMap<u32> = pairs(&[("a", 2), ("b", 4)]).into_iter().collect();
        assert_ne!(a, c);
        a.retain(|k, _| k == "a");
        assert_eq!(a.len(), 1);
        assert!(SmallMap::<u32>::new().is_empty());
    }
}
