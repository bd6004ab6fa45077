//! `runway init`: the files of a new product. The CLI gathers flags (and, at a terminal, asks
//! for what no flag gave), `generate` turns them into file texts, and this module writes them,
//! refusing to overwrite anything without `--force`.

mod compose;
mod generate;

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};

use generate::{Kind, Product, Resource, Workload};

use crate::prelude::*;

/// Start a product: a root `runway.yaml` (every value explained), its editor schema and
/// each environment's stack settings (`infra/<env>/Pulumi.<env>.yaml`); flags for
/// everything, questions only at a terminal (docs/init.md).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The folder to write into (created when missing).
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// The product name (`^[a-z][a-z0-9-]{1,30}[a-z0-9]$`); by default the folder's name, asked
    /// at a terminal.
    #[arg(long)]
    product: Option<String>,
    /// The AWS region of every environment.
    #[arg(long)]
    region: Option<String>,
    /// The production domain (others get `<env>.<domain>`); with it the workload is public.
    /// Without it every workload is internal.
    #[arg(long)]
    domain: Option<String>,
    /// The environments, in order, each `NAME=CAP` (US dollars a month) or `NAME` (runway's
    /// default cap of the name: dev 150, staging 500, none for others).
    #[arg(long = "env", value_name = "NAME[=CAP]", default_values = ["dev=150", "staging=500", "production=1000"])]
    envs: Vec<String>,
    /// Add a postgres resource named `db`.
    #[arg(long)]
    postgres: bool,
    /// Add a queue named `jobs`.
    #[arg(long)]
    queue: bool,
    /// Add a cache (Valkey) named `cache`.
    #[arg(long)]
    cache: bool,
    /// Add a bucket named `files`.
    #[arg(long)]
    bucket: bool,
    /// The workload's name.
    #[arg(long, default_value = "web")]
    workload: String,
    /// The workload's image, pinned by digest; without it a placeholder `check` refuses.
    #[arg(long)]
    image: Option<String>,
    /// The port the workload listens on.
    #[arg(long, default_value_t = 8080, value_parser = clap::value_parser!(u16).range(1..))]
    port: u16,
    /// Map a Compose file's services instead of one workload: images with ports to workloads,
    /// postgres, redis/valkey, elasticmq and minio to resources; what cannot be mapped is listed.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["image", "workload"])]
    from_compose: Option<PathBuf>,
    /// The editor's schema (`$schema=`): a URL, or a file name runway writes the schema to.
    #[arg(long, default_value = "runway.schema.json")]
    schema: String,
    /// The Infisical project that holds the product's secrets (a postgres's or a cache's
    /// credentials, workloads' `secrets`); without it the block is written commented out and
    /// `check` warns (`missing-infisical`) until it is set.
    #[arg(long, value_name = "ID")]
    infisical_project: Option<String>,
    /// Overwrite files that exist.
    #[arg(long)]
    force: bool,
}

impl CommandArgs for Args {}

/// `runway init`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let args = &args;
    let product = product(args, out)?;
    let files = generate::files(&product);
    let existing: Vec<String> = files
        .iter()
        .map(|(p, _)| args.dir.join(p))
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if !existing.is_empty() && !args.force {
        return Err(out.usage(format!(
            "{} already exist{}; nothing written (`--force` overwrites)",
            existing.join(", "),
            if existing.len() == 1 { "s" } else { "" }
        )));
    }
    for (path, text) in &files {
        let path = within(&args.dir, path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| out.usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| out.usage(format!("cannot write {}: {e}", path.display())))?;
        outln!("wrote {}", path.display());
    }
    let root = within(&args.dir, Path::new("runway.yaml"));
    outln!("next: replace each REPLACE-ME, then `runway check {}`", root.display());
    Ok(())
}

/// `path` in `dir`, written without a leading `./` for the current folder.
fn within(dir: &Path, path: &Path) -> PathBuf {
    if dir == Path::new(".") { path.to_owned() } else { dir.join(path) }
}

/// The product from the flags, the Compose file and, at a terminal, the answers.
fn product(args: &Args, out: Out) -> Result<Product, Exit> {
    let ask = std::io::stdin().is_terminal();
    let folder = std::fs::canonicalize(&args.dir).unwrap_or_else(|_| args.dir.clone());
    let guess = folder.file_name().and_then(|n| n.to_str()).map(product_name).unwrap_or_default();
    let name = match &args.product {
        Some(p) => p.clone(),
        None if ask => answer("product name", &guess),
        None => guess,
    };
    if !runway_schema::values::is_valid_product(&name) {
        return Err(out.usage(format!(
            "`{name}` is not a product name (3 to 32 of a-z, 0-9 and `-`, starting with a letter): give `--product NAME`"
        )));
    }
    let region = match &args.region {
        Some(r) => r.clone(),
        None if ask => answer("AWS region", DEFAULT_REGION),
        None => DEFAULT_REGION.to_owned(),
    };
    let domain = match &args.domain {
        Some(d) => Some(d.clone()),
        None if ask => {
            Some(answer("production domain (empty: no public workload)", "")).filter(|d| !d.is_empty())
        }
        None => None,
    };
    let environments = args.envs.iter().map(|e| environment(e, out)).collect::<Result<Vec<_>, _>>()?;
    let (mut resources, workloads) = match &args.from_compose {
        Some(file) => from_compose(file, out)?,
        None => (Vec::new(), Vec::new()),
    };
    let flagged = [
        (args.postgres, "db", Kind::Postgres),
        (args.queue, "jobs", Kind::Queue),
        (args.cache, "cache", Kind::Cache),
        (args.bucket, "files", Kind::Bucket),
    ];
    for (wanted, id, kind) in flagged {
        if wanted && !resources.iter().any(|r| r.name == id) {
            resources.push(Resource {
                name: id.to_owned(),
                kind,
                version: None,
                note: format!("Asked for with `--{}`.", flag_of(kind)),
            });
        }
    }
    let workloads = if args.from_compose.is_some() {
        workloads
    } else {
        vec![Workload {
            name: args.workload.clone(),
            image: args.image.clone(),
            port: args.port,
            listens: true,
            public: true,
            uses: resources.iter().map(|r| r.name.clone()).collect(),
            env: Vec::new(),
            secrets: Vec::new(),
            note: "The product's application.".to_owned(),
        }]
    };
    let write_schema = !args.schema.contains("://");
    Ok(Product {
        name,
        region,
        domain,
        environments,
        resources,
        workloads,
        schema: args.schema.clone(),
        write_schema,
        infisical_project: args.infisical_project.clone(),
    })
}

const DEFAULT_REGION: &str = "us-east-1";

fn flag_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Postgres => "postgres",
        Kind::Queue => "queue",
        Kind::Cache => "cache",
        Kind::Bucket => "bucket",
    }
}

/// A folder name as a product name: lower case, other characters as `-`.
fn product_name(folder: &str) -> String {
    let lower: String = folder
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    lower.trim_matches('-').to_owned()
}

/// The cap runway gives an environment named `name` that declares none.
fn default_cap(name: &str) -> Option<String> {
    match name {
        "dev" => Some(runway_schema::DEFAULT_DEV_CAP.to_owned()),
        "staging" => Some(runway_schema::DEFAULT_STAGING_CAP.to_owned()),
        _ => None,
    }
}

/// `NAME` or `NAME=CAP`.
fn environment(text: &str, out: Out) -> Result<(String, Option<String>), Exit> {
    // `NAME` alone takes runway's default cap of that name, written out so that it is seen.
    let (name, cap) = match text.split_once('=') {
        Some((n, c)) => (n, Some(c.to_owned())),
        None => (text, default_cap(text)),
    };
    if !runway_schema::values::is_valid_name(name) {
        return Err(out.usage(format!("`--env {text}`: `{name}` is not an environment name")));
    }
    if let Some(cap) = &cap
        && runway_schema::Money::parse(cap).is_err()
    {
        return Err(out.usage(format!("`--env {text}`: `{cap}` is not an amount of US dollars")));
    }
    Ok((name.to_owned(), cap))
}

/// The Compose file's resources and workloads; what was not mapped is said on stderr.
fn from_compose(file: &Path, out: Out) -> Result<(Vec<Resource>, Vec<Workload>), Exit> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| out.usage(format!("cannot read {}: {e}", file.display())))?;
    let mapped = compose::map(&text).map_err(|e| out.usage(format!("{}: {e}", file.display())))?;
    if !mapped.unmapped.is_empty() {
        errln!("not carried over from {}:", file.display());
        for line in &mapped.unmapped {
            errln!("  - {line}");
        }
    }
    Ok((mapped.resources, mapped.workloads))
}

/// Asks at the terminal (the question on stderr, the answer from stdin).
fn answer(question: &str, default: &str) -> String {
    answer_from(&mut std::io::stdin().lock(), &mut std::io::stderr(), question, default)
}

/// Asks `question` on `to` and reads one line of `from`; an empty answer (or none) takes
/// `default`.
fn answer_from(
    from: &mut impl std::io::BufRead,
    to: &mut impl Write,
    question: &str,
    default: &str,
) -> String {
    // A closed stderr loses the question, not the answer.
    let _ = write!(to, "{question} [{default}]: ").and_then(|()| to.flush());
    let mut line = String::new();
    let _ = from.read_line(&mut line);
    let line = line.trim();
    if line.is_empty() { default.to_owned() } else { line.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_shows_its_default_and_an_empty_answer_takes_it() {
        let mut said = Vec::new();
        assert_eq!(answer_from(&mut "\n".as_bytes(), &mut said, "AWS region", "us-east-1"), "us-east-1");
        assert_eq!(String::from_utf8(said).unwrap(), "AWS region [us-east-1]: ");
        assert_eq!(answer_from(&mut "  eu-west-1 \n".as_bytes(), &mut Vec::new(), "q", "d"), "eu-west-1");
        assert_eq!(answer_from(&mut "".as_bytes(), &mut Vec::new(), "q", "d"), "d", "no answer at all");
    }

    #[test]
    fn an_environment_without_a_cap_gets_the_one_runway_would_give_it() {
        let out = Out::new(false);
        let env = |t: &str| match environment(t, out) {
            Ok(e) => e,
            Err(Exit(code)) => panic!("`{t}` refused with {code}"),
        };
        assert_eq!(env("dev"), ("dev".to_owned(), Some("150".to_owned())));
        assert_eq!(env("staging"), ("staging".to_owned(), Some("500".to_owned())));
        assert_eq!(env("production"), ("production".to_owned(), None));
        assert_eq!(env("qa=75.50"), ("qa".to_owned(), Some("75.50".to_owned())));
    }

    #[test]
    fn a_folder_name_becomes_a_product_name() {
        assert_eq!(product_name("My_Shop.v2"), "my-shop-v2");
        assert_eq!(product_name("-x-"), "x");
    }
}
