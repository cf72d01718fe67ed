"""Reference solutions to the notebooks' exercises (one module per notebook)."""
