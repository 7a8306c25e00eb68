CREATE TABLE a (id BIGINTT) WITH ('connector' = 'datagen');
CREATE TABLE ok1 (id BIGINT) WITH ('connector' = 'datagen');
EXECUTE STATEMENT SET
BEGIN
  INSERT INTO ok1 SELECT id FROM a;
  INSERT INTO ok1 SELECT id, FROM a;
  INSERT INTO ok1 SELECT id FROM a;
END;
INSERT INTO ok1 SELECT id FROM a QUALIFY id > 1;
SET 'fine' = 'yes';
