/** schema-evolution */
package io.changelake.schema;
