/** connect-sink */
package io.changelake.sink;
