//! What a command's file starts with (`use crate::prelude::*;`), as cargo's `command_prelude`:
//! the shared argument structs, the session, and how a command reports and ends.

pub(crate) use std::path::{Path, PathBuf};

pub(crate) use crate::args::{CommandArgs, EnvArgs, Format, FormatArg, RootArgs, Timing, Waits};
pub(crate) use crate::output::{
    EXIT_CAP, EXIT_INVALID, EXIT_REMOTE, EXIT_TIMEOUT, EXIT_USAGE, Exit, Out, chain, print_json, warn,
};
pub(crate) use crate::session::Session;
