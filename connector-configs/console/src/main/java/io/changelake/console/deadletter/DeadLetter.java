package io.changelake.console.deadletter;

/**
 * One record of a dead-letter topic, with where it came from and why it was rejected (Connect's
 * {@code __connect.errors.*} headers, present with {@code
 * errors.deadletterqueue.context.headers.enable=true}).
 *
 * @param dlqTopic the dead-letter topic
 * @param dlqPartition its partition
 * @param dlqOffset its offset
 * @param timestamp the dead-letter record's timestamp (epoch millis)
 * @param connector the connector that rejected it
 * @param topic the original topic; null without context headers
 * @param partition the original partition; null without context headers
 * @param offset the original offset; null without context headers
 * @param stage the stage that failed (VALUE_CONVERTER, TASK_PUT, ...)
 * @param exceptionClass the failure's exception class
 * @param reason the failure's message, secrets of the connector's config masked
 * @param valuePreview the record's value, its beginning only
 */
public record DeadLetter(
    String dlqTopic,
    int dlqPartition,
    long dlqOffset,
    long timestamp,
    String connector,
    String topic,
    Integer partition,
    Long offset,
    String stage,
    String exceptionClass,
    String reason,
    String valuePreview) {}
