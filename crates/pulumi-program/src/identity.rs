//! A workload's roles: its task execution role and its task role, each with exactly the grants
//! of its plan item, written as a `RolePolicy` beside the role.

use runtime_plan::{Grant, PlannedItem};

use super::RenderError;
use super::context::Context;
use super::iam;

/// A workload's execution role, which the ECS agent assumes for this account only: its policy
/// `start-task` holds `grants`.
pub(super) fn execution_role<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    grants: &'p [Grant],
) -> Result<(), RenderError> {
    let statements = iam::statements(cx, grants)?;
    iam::role_with_policy(cx, item, iam::Assumer::EcsAgent, "start-task", statements)
}

/// A workload's task role, which its tasks (`ecs-tasks.amazonaws.com`) assume for this account
/// only: its policy `uses` holds `grants`.
pub(super) fn task_role<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    grants: &'p [Grant],
) -> Result<(), RenderError> {
    let statements = iam::statements(cx, grants)?;
    iam::role_with_policy(cx, item, iam::Assumer::EcsTasks, "uses", statements)
}
