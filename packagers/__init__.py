"""Dataset export per benchmark task (Hugging Face Parquet, cards, SFT, VLMEvalKit)."""
