-- A delivery's body is kept once, as the raw bytes received (the signature's evidence); readers and the
-- worker parse them in Node. The parsed `jsonb` copy doubled what each delivery wrote (a second TOASTed,
-- compressed body on the row the worker rewrites when it marks the delivery processed) and was the one
-- place a body Postgres's jsonb refuses (a number beyond its range) could fail a delivery.
alter table events drop column body;
