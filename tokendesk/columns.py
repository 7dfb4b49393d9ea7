"""Names of the cost join's columns that several outputs share (no imports: the commands' help
loads it)."""

#: An option's identity and its cost figures, as the cost join names them: the leading columns
#: of ``tokendesk costs`` and the options futures day's JSON lists, so the two read alike.
OPTION_FIGURES = [
    "provider",
    "region",
    "instance_type",
    "pricing_model",
    "accelerator_id",
    "model",
    "precision",
    "scenario",
    "concurrency",
    "replicas_per_instance",
    "instance_output_tok_s",
    "usd_per_hour",
    "usd_per_1k_output_tokens",
    "usd_per_1k_total_tokens",
]
