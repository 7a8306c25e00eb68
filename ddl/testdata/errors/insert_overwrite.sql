SET 'execution.checkpointing.interval' = '5s';

INSERT OVERWRITE sink SELECT * FROM src;
