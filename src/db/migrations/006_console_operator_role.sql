-- Console roles: `member` acts for its own account; `operator` also manages every account, routing
-- group and upstream account through the console's operator pages (the admin CLI stays).
ALTER TABLE console_users ADD COLUMN role text NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'operator'));
