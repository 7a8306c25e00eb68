CREATE TABLE users (
	id BIGINT,
	name STRING,
	PRIMARY KEY (id)
) WITH ('connector' = 'upsert-kafka');
