-- What both engines' nexmark connectors must agree on, event by event, when
-- the public generator runs seeded from the clock (as Flink runs it): each
-- event's type and its person or auction id. The other fields are random
-- (compared by distribution in connectors/nexmark's TestUnseededReference).
CREATE TABLE same_events (
    event_type INT,
    person_id BIGINT,
    auction_id BIGINT
) WITH (
    'connector' = 'print'
);

INSERT INTO same_events SELECT event_type, person.id, auction.id FROM datagen;
