"""VANTAGE-Bench task generators: rendered clips in, formats.vantage_item.VantageItem rows out (one module per task)."""
