//! What can go wrong in an import, each saying what a person needs to fix it.

/// An import failure. Nothing is written when one happens.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A region the importer does not know (a typo, or a region newer than this build).
    #[error("unknown region `{region}`; the importer knows: {}", known.join(", "))]
    UnknownRegion {
        /// The region asked for.
        region: String,
        /// The regions it knows.
        known: Vec<&'static str>,
    },
    /// `--endpoint` is not an http(s) URL.
    #[error(
        "the endpoint `{endpoint}` is not an http:// or https:// URL (the default is {})",
        crate::DEFAULT_ENDPOINT
    )]
    BadEndpoint {
        /// The endpoint given.
        endpoint: String,
    },
    /// The HTTP client could not start (its TLS set-up failed).
    #[error("cannot start the HTTP client: {message}")]
    Client {
        /// What the HTTP client said.
        message: String,
    },
    /// The endpoint did not answer, or the transfer broke off.
    #[error(
        "cannot fetch {url}: {message}; check the endpoint (--endpoint) and the network, then run the import again"
    )]
    Unreachable {
        /// The URL asked for.
        url: String,
        /// What the HTTP client said.
        message: String,
    },
    /// The endpoint answered with an error status.
    #[error(
        "{url} answered HTTP {status}; check the endpoint (--endpoint): it should serve the AWS Price List bulk files under /offers/v1.0/aws/"
    )]
    Status {
        /// The URL asked for.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// A file that is not a price-list file of the documented format.
    #[error(
        "{url} is not a valid AWS Price List file: {message}; check that --endpoint serves the AWS Price List bulk files, then run the import again (a transfer cut short is read as truncated JSON)"
    )]
    Malformed {
        /// The URL of the file.
        url: String,
        /// What is wrong, with line and column where the JSON reader gives them.
        message: String,
    },
    /// A file larger than any price-list file the importer expects.
    #[error("{url} is larger than {limit} bytes, more than any AWS Price List offer file; check --endpoint")]
    TooLarge {
        /// The URL of the file.
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
}

impl Error {
    /// Is it the caller's input (an unknown region) rather than the remote side?
    pub fn is_usage(&self) -> bool {
        matches!(self, Error::UnknownRegion { .. } | Error::BadEndpoint { .. })
    }

    /// May the same request succeed if tried again: the endpoint unreachable, the transfer
    /// broken off, or the server overloaded or failing (HTTP 429, 5xx)?
    pub fn may_pass(&self) -> bool {
        match self {
            Error::Unreachable { .. } => true,
            Error::Status { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }
}
