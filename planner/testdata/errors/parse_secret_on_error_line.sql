CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2hunter";' 'topic' = 'in');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole', 'token'
  = 'hunter3hunter',, 'x' = 'y');
