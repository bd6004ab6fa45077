// The per-kind fixtures, one table for the two crates that golden them (runtime-plan's plan
// items and pulumi-program's resources, each `tests/it/kinds.rs`, `include!` this file): each
// fixture by name, its text, and the owner whose items and resources its goldens hold. A new
// kind of the file format fails runtime-plan's `every_kind_of_the_format_has_its_fixture` until
// it has a row here.

/// Each fixture by name, its text, and the owner whose items or resources its golden holds.
const KINDS: [(&str, &str, &str); 7] = [
    ("postgres", include_str!("kinds/postgres.yaml"), "db"),
    ("aurora", include_str!("kinds/aurora.yaml"), "db"),
    ("queue", include_str!("kinds/queue.yaml"), "jobs"),
    ("topic", include_str!("kinds/topic.yaml"), "events"),
    ("cache", include_str!("kinds/cache.yaml"), "sessions"),
    ("bucket", include_str!("kinds/bucket.yaml"), "uploads"),
    ("workload", include_str!("kinds/workload.yaml"), "web"),
];
