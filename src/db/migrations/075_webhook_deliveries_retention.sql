-- The webhook delivery log is trimmed by age (WEBHOOK_DELIVERIES_RETENTION_DAYS) by the maintenance
-- worker, in batches: this index lets each batch find the oldest rows without scanning the table.
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
