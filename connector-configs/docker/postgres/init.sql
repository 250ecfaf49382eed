-- The demo schema for docker-compose: two tables into deduplicate lake tables, and customers plus
-- loyalty into the partial-update table customer_360 (loyalty.id is the customer's id, so both
-- topics share the primary key).
CREATE TABLE customers (id INT PRIMARY KEY, name TEXT NOT NULL, email TEXT, tier TEXT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount NUMERIC(10, 2), status TEXT);
CREATE TABLE loyalty (id INT PRIMARY KEY, points INT NOT NULL, level TEXT);
ALTER TABLE customers REPLICA IDENTITY FULL;
ALTER TABLE orders REPLICA IDENTITY FULL;
ALTER TABLE loyalty REPLICA IDENTITY FULL;
INSERT INTO customers VALUES (1, 'Ada Lovelace', 'ada@example.com', 'gold'),
                             (2, 'Grace Hopper', 'grace@example.com', 'silver');
INSERT INTO orders VALUES (10, 1, 42.50, 'paid'), (11, 2, 7.00, 'open');
INSERT INTO loyalty VALUES (1, 1200, 'gold'), (2, 300, 'silver');
-- Paimon's JDBC catalog and its commit lock (the lake is on S3, where commits need a lock)
CREATE DATABASE paimon;
