//! Records found by a key through their positions sorted by it: 4 bytes a record, where a
//! `BTreeMap` from key to record took about 28 (the text of a 10,000-resource plan held
//! several, over its 90,000 items and 60,000 cost lines, while it was written).

/// The positions of `records` sorted by a key (records with the same key in their order).
pub(super) struct Sorted<'p, T> {
    records: &'p [T],
    key: fn(&T) -> &str,
    /// Positions in `records`, by key. A plan's lists are far from 4,294,967,296 records long.
    order: Vec<u32>,
}

impl<'p, T> Sorted<'p, T> {
    /// `records` sorted by `key`.
    pub(super) fn by(records: &'p [T], key: fn(&T) -> &str) -> Self {
        // A range of known length: collected at its size, no spare room.
        let mut order: Vec<u32> = (0..u32::try_from(records.len()).unwrap_or(u32::MAX)).collect();
        // In place, ties by position: the order a stable sort gives, without its scratch buffer
        // (half the positions again).
        order.sort_unstable_by(|&a, &b| {
            key(&records[a as usize]).cmp(key(&records[b as usize])).then(a.cmp(&b))
        });
        Sorted { records, key, order }
    }

    /// The record at a position of `order`.
    fn at(&self, position: u32) -> &'p T {
        &self.records[position as usize]
    }

    /// The positions (in `order`) of the records whose key is `key`.
    fn range(&self, key: &str) -> std::ops::Range<usize> {
        let start = self.order.partition_point(|&i| (self.key)(self.at(i)) < key);
        let end = start + self.order[start..].partition_point(|&i| (self.key)(self.at(i)) == key);
        start..end
    }

    /// The records whose key is `key`, in their order.
    pub(super) fn all(&self, key: &str) -> impl Iterator<Item = &'p T> + '_ {
        self.order[self.range(key)].iter().map(|&i| self.at(i))
    }

    /// The last record whose key is `key` (the one a map collected from the records keeps).
    pub(super) fn get(&self, key: &str) -> Option<&'p T> {
        self.order[self.range(key)].last().map(|&i| self.at(i))
    }

    /// The records in runs of one key each, keys in the order of their first record: each
    /// run's records in their order.
    pub(super) fn runs_in_order(&self) -> impl Iterator<Item = &'p T> + '_ {
        // Where each run starts in `order` (as `order` holds positions: 4 bytes a run).
        let mut runs: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < self.order.len() {
            let key = (self.key)(self.at(self.order[start]));
            runs.push(u32::try_from(start).unwrap_or(u32::MAX));
            start += self.order[start..].partition_point(|&i| (self.key)(self.at(i)) == key);
        }
        // A run's first record is its earliest: the sort keeps records of a key in order.
        runs.sort_unstable_by_key(|&start| self.order[start as usize]);
        runs.into_iter().flat_map(move |start| {
            let run = &self.order[start as usize..];
            let key = (self.key)(self.at(run[0]));
            run[..run.partition_point(|&i| (self.key)(self.at(i)) == key)].iter().map(|&i| self.at(i))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Sorted;

    #[test]
    fn records_are_found_by_key_and_run_in_the_order_first_met() {
        let records = ["b1", "a1", "c1", "b2", "a2", "a3"];
        let sorted = Sorted::by(&records, |r| &r[..1]);
        assert_eq!(sorted.all("a").copied().collect::<Vec<_>>(), ["a1", "a2", "a3"]);
        assert_eq!(sorted.all("d").count(), 0);
        assert_eq!(sorted.get("b"), Some(&"b2"));
        assert_eq!(sorted.get("0"), None);
        let runs: Vec<&str> = sorted.runs_in_order().copied().collect();
        assert_eq!(runs, ["b1", "b2", "a1", "a2", "a3", "c1"]);
        assert_eq!(Sorted::by(&[] as &[&str], |r| r).runs_in_order().count(), 0);
    }
}
