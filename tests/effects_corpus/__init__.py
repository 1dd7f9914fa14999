"""Small functions whose effects are known, for the effect analysis tests and nothing else."""
