-- JSON_ARRAYAGG of strings that JSON escapes: quotes, backslashes, control characters, non-ASCII
CREATE TABLE strs (k STRING, s STRING) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/strings', 'format' = 'json');

SELECT k, JSON_ARRAYAGG(s) FROM strs GROUP BY k;
