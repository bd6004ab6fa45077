//! `environments.<env>.bootstrap`: the image of the environment's postgres bootstrap tasks
//! (the one-off task that makes each postgres resource's login roles). One setting per
//! environment, since a mirror or a pull-through cache lives in an account and a region; the
//! planner's default is a pinned `postgres:16-alpine` from ECR Public (`runtime-plan`,
//! `plan/bootstrap.rs`; docs/secrets.md, "Database roles").

use serde::Serialize;

use crate::Location;
use crate::values::ImageRef;

/// `environments.<env>.bootstrap` as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Bootstrap {
    /// `image`: a PostgreSQL 16 (or later) client image with `sh` and `psql`, pinned by digest,
    /// e.g. a private ECR mirror; `None` for the planner's default.
    pub image: Option<ImageRef>,
    /// Where `image` is written, when it is (the place a warning about its route points at).
    #[serde(skip)]
    pub at: Option<Location>,
}
