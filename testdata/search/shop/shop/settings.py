MAX_RETRIES = 3
RETRY_DELAY_SECONDS = 0.5
DEFAULT_CURRENCY = "EUR"
maxRetries = MAX_RETRIES  # legacy camelCase alias kept for old plugins
