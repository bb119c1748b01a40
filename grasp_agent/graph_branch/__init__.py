"""The GRASP graph branch: mentions, entity table, plan, validation/compilation/execution, rescoring."""
