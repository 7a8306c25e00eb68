CREATE CATALOG my_catalog ('type' = 'generic_in_memory');
