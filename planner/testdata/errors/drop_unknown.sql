DROP TABLE nothing;
