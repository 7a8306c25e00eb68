CREATE CATALOG my_catalog WITH ('type' = 'generic_in_memory');
