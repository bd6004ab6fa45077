//! The macro of the kinds table ([`super::kinds`]): one row per kind, every column required.
//! Kept apart from the rows so the table is the whole of `kinds.rs`.

/// Declares [`ItemKind`](super::ItemKind) and its facts from one table. A row is
/// `Variant pattern = "json" { column: value, ... }`: `pattern` destructures the [`ItemSpec`](super::ItemSpec)
/// variant (`{}`, `{ field, .. }`, `(spec)`), and the spec-dependent columns (`protected`,
/// `apply_immediately`, `access`) are expressions over its bindings; `alarms` lists
/// [`AlarmName`](super::AlarmName) variants. Every column is required,
/// in this order.
macro_rules! item_kinds {
    ($(
        $(#[$doc:meta])*
        $variant:ident $fields:tt = $json:literal {
            words: $words:literal,
            name_limit: $limit:expr,
            included: $included:expr,
            billed_by_use: $billed:literal,
            holds_secret: $secret:literal,
            decrypts_secrets: $decrypts:literal,
            used_through: $used:ident,
            protected: $protected:expr,
            apply_immediately: $apply:expr,
            access: $access:expr,
            stored_data: $stored:expr,
            database_server: $server:literal,
            alarms: [$($alarm:ident),* $(,)?] $(,)?
        }
    )*) => {
        /// The kind of an AWS item (its type, without properties): [`ItemSpec::kind`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum ItemKind { $($(#[$doc])* #[serde(rename = $json)] $variant,)* }

        impl ItemKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ItemKind] = &[$(ItemKind::$variant,)*];

            /// The kebab-case name (as in JSON).
            pub fn as_str(self) -> &'static str {
                match self { $(ItemKind::$variant => $json,)* }
            }

            /// What the item is, in the words a person reads in the plan's text (`RDS instance`,
            /// `ALB`, `task definition`).
            pub fn words(self) -> &'static str {
                match self { $(ItemKind::$variant => $words,)* }
            }

            /// The longest physical name AWS accepts for the kind; `None` for a kind AWS names
            /// itself (the plan then holds its qualified address) or one never declared.
            pub fn name_limit(self) -> Option<usize> {
                match self { $(ItemKind::$variant => $limit,)* }
            }

            /// Why an item of this kind planned without a price of its own costs nothing.
            pub fn included_note(self) -> &'static str {
                match self { $(ItemKind::$variant => $included,)* }
            }

            /// Whether items of this kind are billed by a use the plan cannot know (log volume,
            /// an account's other budgets): their rates are shown, they have no amount.
            pub fn billed_by_use(self) -> bool {
                match self { $(ItemKind::$variant => $billed,)* }
            }

            /// Whether it is a secret `runway secrets prepare` writes, encrypted with the
            /// environment's key (so the environment needs its key).
            pub fn holds_secret(self) -> bool {
                match self { $(ItemKind::$variant => $secret,)* }
            }

            /// Whether it is a role that reads secrets encrypted with the environment's key (the
            /// key's policy names it).
            pub fn decrypts_secrets(self) -> bool {
                match self { $(ItemKind::$variant => $decrypts,)* }
            }

            /// What a workload's `uses` of its resource grants on it.
            pub fn used_through(self) -> UsedThrough {
                match self { $(ItemKind::$variant => UsedThrough::$used,)* }
            }

            /// The data an item of this kind holds that no deploy re-creates, or `None` when a
            /// new one is as good as the old (its configuration is all of it). A review warns
            /// when `pulumi preview` replaces or deletes an item with stored data
            /// (docs/review.md).
            pub fn stored_data(self) -> Option<StoredData> {
                match self { $(ItemKind::$variant => $stored,)* }
            }

            /// Whether an item of this kind owned by a postgres resource is part of its server
            /// (instance or cluster, proxy, their network and alarms), which a pull request's
            /// preview shares with the environment it comes from; its tasks, its consumers'
            /// logins and roles are the preview's own (`runtime_plan::previews`).
            pub fn database_server(self) -> bool {
                match self { $(ItemKind::$variant => $server,)* }
            }

            /// The alarms an item of this kind is watched with, when the environment has alarms
            /// (`lower/concerns/alerting.rs` gives each its dimensions; docs/planning.md,
            /// "Alarms").
            pub fn alarms(self) -> &'static [AlarmName] {
                match self { $(ItemKind::$variant => &[$(AlarmName::$alarm,)*],)* }
            }
        }

        // A column's expression may leave the row's bindings unused.
        #[allow(unused_variables)]
        impl ItemSpec {
            /// The item's kind.
            pub fn kind(&self) -> ItemKind {
                match self { $(ItemSpec::$variant $fields => ItemKind::$variant,)* }
            }

            /// Must the deploy refuse to delete or replace it (Pulumi `protect`)? Production
            /// databases and buckets.
            pub fn protected(&self) -> bool {
                match self { $(ItemSpec::$variant $fields => $protected,)* }
            }

            /// Whether a change to it takes effect at the deploy (`Some(true)`) or at its next
            /// maintenance window (`Some(false)`); `None` for an item without a maintenance
            /// window. Databases and caches (the plan's `applyChanges`).
            pub fn apply_immediately(&self) -> Option<bool> {
                match self { $(ItemSpec::$variant $fields => $apply,)* }
            }

            /// The item's rules or grants: every kind says which it has.
            pub fn access(&self) -> Access<'_> {
                match self { $(ItemSpec::$variant $fields => $access,)* }
            }
        }
    };
}
