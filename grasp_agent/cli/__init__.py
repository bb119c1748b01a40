"""The `grasp` command line."""
