-- Modules: core, streamsql's built-in functions, is the one loaded.
LOAD MODULE hive WITH ('hive-version' = '3.1.2');
UNLOAD MODULE core;
UNLOAD MODULE hive;
USE MODULES core, hive;
USE MODULES core, core;
