"""Component tests share the ECS fixtures (a fresh esper world per test)."""

from tests.systems.conftest import event_log, fresh_world  # noqa: F401  (pytest fixtures)
