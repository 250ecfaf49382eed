-- The mirror database is empty: Debezium's JDBC sink creates the tables from the changelog.
SELECT 1;
