"""Configuration: the settings (declared once), the model registry (models.toml) and paths."""
