-- A request record appended before its answer's last byte left (so a process killed right after
-- answering loses none) is provisional: the record built when the response closed replaces it.
ALTER TABLE request_records ADD COLUMN provisional boolean NOT NULL DEFAULT false;
