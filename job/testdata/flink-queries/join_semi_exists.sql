-- a correlated EXISTS with a condition on both inputs: a semi join (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v FROM events e WHERE EXISTS (SELECT 1 FROM dims d WHERE d.k = e.k AND d.lvl < e.v);
