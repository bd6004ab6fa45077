//! A workload's roles: its task execution role and its task role, each with exactly the grants
//! of its plan item, written as a `RolePolicy` beside the role.

use runtime_plan::{ItemSpec, PlannedItem};

use super::RenderError;
use super::context::{Context, wrong_spec};
use super::iam;

/// The role ECS (`ecs-tasks.amazonaws.com`) assumes for this account only: a workload's
/// execution role or task role.
pub(super) fn role<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    // A projection: only a workload's two roles are dispatched here.
    let (grants, policy_name, assumer) = if let ItemSpec::TaskExecutionRole { grants, .. } = &item.spec {
        (grants, "start-task", iam::Assumer::EcsAgent)
    } else if let ItemSpec::TaskRole { grants, .. } = &item.spec {
        (grants, "uses", iam::Assumer::EcsTasks)
    } else {
        return Err(wrong_spec(item));
    };
    let statements = iam::statements(cx, grants)?;
    iam::role_with_policy(cx, item, assumer, policy_name, statements)
}
