//! The two GitHub Actions workflows `runway ci init --provider github` writes: text only, from
//! values `ci::run` checked (names, a branch, a path and the install source in a safe
//! alphabet), so nothing from the runway file reaches a script except through `env:`.
//!
//! Every action is pinned by its full commit (the tag in a comment); permissions are none at
//! the top and the least each job needs; the pull-request workflow runs on `pull_request` (a
//! fork's code never sees a token that can write), the deploy workflow only on pushes to the
//! branch, one job per environment, each behind its GitHub environment (protection rules,
//! and the OIDC subject `runway iam --github-repo` trusts).

use std::fmt::Write as _;

/// `actions/checkout` v7.0.1.
const CHECKOUT: &str = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1";
/// `aws-actions/configure-aws-credentials` v6.2.3.
const AWS_CREDENTIALS: &str =
    "aws-actions/configure-aws-credentials@e6de054238d6b7531b4efff3b6587d9aade6a06c # v6.2.3";
/// `pulumi/actions` v7.0.0: without `command` it only installs the CLI.
const PULUMI: &str = "pulumi/actions@8e5e406f4007fca908480587cb9893c07090f58d # v7.0.0";
/// The Pulumi CLI the deploy job installs: the version of the SDK the tests run against
/// (tools/requirements.txt), 3.158 or newer for `up --exclude` (docs/pipeline.md).
pub(crate) const PULUMI_VERSION: &str = "3.272.0";

/// One environment the deploy workflow deploys.
pub(crate) struct Target {
    /// The runway environment, also the GitHub environment and the job's id.
    pub(crate) name: String,
    /// Its AWS region.
    pub(crate) region: String,
    /// The deploy role `runway iam` prints for it.
    pub(crate) role: String,
}

/// What both workflows are made of.
pub(crate) struct Inputs {
    /// The root runway file, relative to the repository's root.
    pub(crate) file: String,
    /// The environments, in the order the deploy runs them.
    pub(crate) targets: Vec<Target>,
    /// The branch whose pushes deploy.
    pub(crate) branch: String,
    /// Where `cargo install` takes runway from, and which revision.
    pub(crate) runway_git: String,
    /// A commit (or tag) of that repository.
    pub(crate) runway_rev: String,
}

/// The file names under `.github/workflows/` and their text.
pub(crate) fn workflows(inputs: &Inputs) -> Vec<(&'static str, String)> {
    vec![("runway-pull-request.yml", pull_request(inputs)), ("runway-deploy.yml", deploy(inputs))]
}

/// The header comment and the workflow's name.
fn head(out: &mut String, name: &str, what: &str) {
    let _ = write!(
        out,
        "# Written by `runway ci init --provider github` ({what}); docs/ci.md says what each step
# does and what the repository must set. `runway ci init --force` writes it anew.
name: {name}
"
    );
}

/// The workflow-wide `env:`: the root file and where runway is installed from.
fn env_block(out: &mut String, inputs: &Inputs) {
    let _ = write!(
        out,
        "
env:
  RUNWAY_FILE: '{file}'
  # The README's install line, from runway's repository at one commit.
  RUNWAY_GIT: '{git}'
  RUNWAY_REV: '{rev}'
",
        file = inputs.file,
        git = inputs.runway_git,
        rev = inputs.runway_rev,
    );
}

/// The steps every job starts with: the checkout (no token left in `.git/config`) and runway.
fn first_steps(out: &mut String, fetch_all: bool) {
    let _ = writeln!(out, "      - name: Check out\n        uses: {CHECKOUT}\n        with:");
    if fetch_all {
        out.push_str("          fetch-depth: 0 # the base branch's commit, for the review\n");
    }
    out.push_str(
        "          persist-credentials: false
      - name: Install runway
        run: cargo install --locked --git \"$RUNWAY_GIT\" --rev \"$RUNWAY_REV\" runway-cli
",
    );
}

/// The pull-request workflow: check, preflight without AWS, and the review as one comment.
fn pull_request(inputs: &Inputs) -> String {
    let mut out = String::new();
    head(&mut out, "runway pull request", "the pull-request job");
    out.push_str(
        "
on:
  pull_request:

permissions: {}

concurrency:
  group: runway-pr-${{ github.event.pull_request.number }}
  cancel-in-progress: true
",
    );
    env_block(&mut out, inputs);
    out.push_str(
        "
jobs:
  runway:
    name: check, preflight, review
    runs-on: ubuntu-latest
    timeout-minutes: 60
    permissions:
      contents: read # the checkout
      pull-requests: write # the review comment
    steps:
",
    );
    first_steps(&mut out, true);
    out.push_str("      - name: Check\n        run: runway check \"$RUNWAY_FILE\"\n");
    for t in &inputs.targets {
        let _ = write!(
            out,
            "      - name: Preflight {env} (public images; no AWS here)
        if: ${{{{ !cancelled() }}}}
        run: runway preflight --env {env} --no-aws \"$RUNWAY_FILE\"
",
            env = t.name
        );
    }
    out.push_str(REVIEW_STEPS);
    out
}

/// The review, its sticky comment and the verdict. The comment is found by runway's marker
/// among the comments the workflow's own bot wrote, and edited in place; a fork's pull
/// request (a read-only token) gets the review in the job's summary only.
const REVIEW_STEPS: &str = r#"      - name: Review
        id: review
        if: ${{ !cancelled() }}
        env:
          BASE: ${{ github.base_ref }}
        run: |
          set +e
          runway diff --base-ref "origin/$BASE" --format markdown "$RUNWAY_FILE" > review.md
          code=$?
          set -e
          echo "code=$code" >> "$GITHUB_OUTPUT"
          cat review.md >> "$GITHUB_STEP_SUMMARY"
      - name: Post or update the review comment
        if: ${{ !cancelled() && (steps.review.outputs.code == '0' || steps.review.outputs.code == '3') && github.event.pull_request.head.repo.full_name == github.repository }}
        env:
          GH_TOKEN: ${{ github.token }}
          PR: ${{ github.event.pull_request.number }}
        run: |
          ids=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$PR/comments" \
            --jq '.[] | select(.user.login == "github-actions[bot]") | select(.body | startswith("<!-- runway-review -->")) | .id')
          id=${ids%%$'\n'*}
          if [ -n "$id" ]; then
            gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F body=@review.md > /dev/null
            echo "updated the review comment $id"
          else
            gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F body=@review.md > /dev/null
            echo "posted the review comment"
          fi
      - name: Fail on an invalid or refused runway
        if: ${{ !cancelled() && steps.review.outputs.code != '0' }}
        env:
          CODE: ${{ steps.review.outputs.code }}
        run: exit "$CODE"
"#;

/// The deploy workflow: one job per environment, each after the one before it.
fn deploy(inputs: &Inputs) -> String {
    let mut out = String::new();
    head(&mut out, "runway deploy", "the deploy jobs");
    let _ = write!(
        out,
        "
on:
  push:
    branches:
      - {branch}

permissions: {{}}
",
        branch = inputs.branch
    );
    env_block(&mut out, inputs);
    out.push_str("\njobs:\n");
    let mut before: Option<&str> = None;
    for t in &inputs.targets {
        deploy_job(&mut out, t, before);
        before = Some(&t.name);
    }
    out
}

/// One environment's deploy job.
fn deploy_job(out: &mut String, t: &Target, needs: Option<&str>) {
    let env = &t.name;
    let _ = writeln!(out, "  {env}:\n    name: deploy {env}");
    if let Some(needs) = needs {
        let _ = writeln!(out, "    needs: {needs}");
    }
    let _ = write!(
        out,
        "    runs-on: ubuntu-latest
    timeout-minutes: 120
    # The GitHub environment: its protection rules, its variables and secrets, and the OIDC
    # subject `repo:OWNER/NAME:environment:{env}` the role's trust names.
    environment: {env}
    # Never two deploys of one environment at once; a later push waits, none is cancelled.
    concurrency:
      group: runway-deploy-{env}
      cancel-in-progress: false
    permissions:
      contents: read # the checkout
      id-token: write # the OIDC token for the role
    steps:
"
    );
    first_steps(out, false);
    let _ = write!(
        out,
        "      - name: Install the Pulumi CLI
        uses: {PULUMI}
        with:
          pulumi-version: {PULUMI_VERSION}
      - name: Assume the deploy role
        uses: {AWS_CREDENTIALS}
        with:
          role-to-assume: arn:aws:iam::${{{{ vars.AWS_ACCOUNT_ID }}}}:role/{role}
          aws-region: {region}
          role-session-name: runway-deploy-{env}
      - name: Deploy {env}
        env:
          INFISICAL_CLIENT_ID: ${{{{ secrets.INFISICAL_CLIENT_ID }}}}
          INFISICAL_CLIENT_SECRET: ${{{{ secrets.INFISICAL_CLIENT_SECRET }}}}
          PULUMI_ACCESS_TOKEN: ${{{{ secrets.PULUMI_ACCESS_TOKEN }}}}
        run: runway deploy --env {env} \"$RUNWAY_FILE\"
",
        role = t.role,
        region = t.region,
    );
}
